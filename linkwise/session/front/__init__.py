"""What a person sees and answers in: the web page (``_web`` and ``static/``), the terminal prompt and the notebook
widget.

The top layer of :mod:`linkwise.session`: a front end may import linkwise, :mod:`linkwise.session.data` and
:mod:`linkwise.session.core`, and renders and acts only through what the session offers (:class:`HumanSession`);
nothing below imports it.
"""
