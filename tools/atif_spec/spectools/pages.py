"""Where the site is served: the GitHub Pages domain, taken from the catalog's ``base_url``.

The release workflow (``.github/workflows/release.yml``) runs
``python -m atif_spec.spectools.pages cname SITE`` to write ``SITE/CNAME`` (the host of the one
``$id`` constant, ``base_url`` in ``spec/catalog.json``) and
``python -m atif_spec.spectools.pages check PAGES_URL`` to refuse a deploy when the Pages site
(``actions/configure-pages``' ``base_url`` output) is not served at that host's root: the site is
laid out with every schema at the path of its ``$id`` (``atif_spec.spectools.site``), so only the
origin of ``base_url`` serves the pinned URLs. RFC.md §8 records the decision.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

from atif_spec.schemas.catalog import Catalog, load_catalog

USAGE = "usage: python -m atif_spec.spectools.pages (cname SITE | check PAGES_URL)"


def origin(catalog: Catalog) -> str:
    """``https://host`` of the catalog's base URL: where the site root must be served."""
    parts = urlsplit(catalog.base_url)
    return f"{parts.scheme}://{parts.netloc}"


def host(catalog: Catalog) -> str:
    """The Pages custom domain: the host of the catalog's base URL."""
    return urlsplit(catalog.base_url).netloc


def write_cname(site: Path, catalog: Catalog) -> Path:
    """Write ``site/CNAME`` (the custom domain, one line) and return its path."""
    path = site / "CNAME"
    path.write_text(host(catalog) + "\n", encoding="utf-8")
    return path


def mismatch(pages_url: str, catalog: Catalog) -> str | None:
    """Why a Pages site at ``pages_url`` would not serve the catalog's ``$id`` URLs, or None."""
    served = pages_url.rstrip("/")
    if served == origin(catalog):
        return None
    return (
        f"GitHub Pages serves {served or '(nothing)'}, but the schemas' $id URLs start with "
        f"{catalog.base_url}: refusing to deploy; set the repository's Pages custom domain to "
        f"{host(catalog)} (RFC.md §8)"
    )


def main(argv: list[str] | None = None) -> int:
    """``cname SITE`` writes the CNAME; ``check PAGES_URL`` exits 1 when the domains differ."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in ("cname", "check"):
        print(USAGE, file=sys.stderr)
        return 2
    catalog = load_catalog()
    if args[0] == "cname":
        site = Path(args[1])
        if not site.is_dir():
            print(f"pages: {site} is not a directory (build the site first)", file=sys.stderr)
            return 2
        print(f"pages: {write_cname(site, catalog)} names {host(catalog)}", file=sys.stderr)
        return 0
    problem = mismatch(args[1], catalog)
    if problem:
        print(f"pages: {problem}", file=sys.stderr)
        return 1
    print(f"pages: {args[1]} serves the $id URLs under {catalog.base_url}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
