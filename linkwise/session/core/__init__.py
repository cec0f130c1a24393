"""A person's session itself: the session file (every statement stored before the next question), its replay and
resume points, the controller the front ends talk to (:class:`HumanSession`), feedback on clusters, review, teams,
imports and exports, and the one way to open a session.

The middle layer of :mod:`linkwise.session`: it may import linkwise and :mod:`linkwise.session.data`, never a front
end; the one exception is :meth:`HumanSession.widget`, which hands the session to the notebook front end it names.
"""
