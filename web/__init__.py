"""The reference browser client: a single page (plain ES modules, no build step)
served at ``/`` by the same server, talking to the API (``openapi.yaml``) only."""
