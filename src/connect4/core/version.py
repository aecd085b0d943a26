"""The package's version, in the bottom layer so every layer may name it.

>>> __version__
'0.1.0'
"""

__version__ = "0.1.0"
