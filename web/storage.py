"""Production static files (DEBUG off): ``manage.py collectstatic`` writes every file
under a content-hashed name beside a gzip copy, and WhiteNoise serves the hashed
names with a year's ``Cache-Control: immutable``."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFiles(CompressedManifestStaticFilesStorage):
    # The client's ES modules import each other (``import { h } from "./ui.js"``):
    # rewrite those imports to the hashed names too, or a new release would mix a
    # fresh app.js with modules the browser cached from the last one.
    support_js_module_import_aggregation = True
