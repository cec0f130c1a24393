"""What a person's session clusters: their file read (a table, a folder of images, series), its columns detected,
and what is drawn beside an item.

The lowest layer of :mod:`linkwise.session`: it may import the core of linkwise (:mod:`linkwise.intake` and below)
and nothing of the session's other layers.
"""
