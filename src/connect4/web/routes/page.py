"""The page at ``/`` and the OpenAPI docs at ``/docs`` (Swagger UI) and ``/redoc``, served
from local files (``fastapi-offline``), not a CDN: they work without the internet.

The files themselves are mounted by :func:`mount_files` (a router cannot carry mounts).

>>> sorted(route.path for route in router.routes)
['/', '/docs', '/redoc']
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

router = APIRouter(include_in_schema=False)

STATIC = resources.files("connect4.web") / "static"
DOCS_FILES = resources.files("fastapi_offline") / "static"


def mount_files(app: FastAPI) -> None:
    """Serve the page's files at ``/static`` and the docs' files at ``/docs-files``."""
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.mount("/docs-files", StaticFiles(directory=str(DOCS_FILES)), name="docs-files")


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(str(STATIC / "index.html"), media_type="text/html")


@router.get("/docs")
async def docs(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title=f"{request.app.title} API",
        swagger_js_url="/docs-files/swagger-ui-bundle.js",
        swagger_css_url="/docs-files/swagger-ui.css",
        swagger_favicon_url="/docs-files/favicon.png",
    )


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    return get_redoc_html(
        openapi_url="/openapi.json",
        title=f"{request.app.title} API",
        redoc_js_url="/docs-files/redoc.standalone.js",
        redoc_favicon_url="/docs-files/favicon.png",
        with_google_fonts=False,
    )
