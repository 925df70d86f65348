"""The arena behind ``manage.py arena`` (and ``python -m tools.arena``): strategies
play each other on the pure engine, no server, in duplicate format, and the
results come with confidence intervals.

One job a module:

* ``lineup`` - strategy specs (``greedy``, ``strong``, ``strong:rollouts=50``) to ``choose`` functions
* ``play``   - one match of a line-up on one deal, timing every decision's CPU
* ``stats``  - mean, confidence interval, Student's t test (no numpy)
* ``runner`` - the schedule (every deal once per rotation of the line-up) on a pool of processes
* ``report`` - results per strategy, the printed table and the JSON document
* ``cli``    - the command line shared by ``manage.py arena`` and ``python -m tools.arena``
"""
