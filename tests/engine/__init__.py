"""Tests of the pure rules engine (``games.engine``): no Django needed."""
