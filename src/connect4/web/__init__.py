"""The browser app and HTTP API: ``connect4 serve``, then open http://127.0.0.1:8000/.

>>> from connect4.web import Settings, create_app
>>> create_app(Settings(threads=1)).title
'connect4'
"""

from connect4.web.app import create_app
from connect4.web.settings import Settings

__all__ = ["Settings", "create_app"]
