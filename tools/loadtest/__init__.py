"""The load benchmark behind ``manage.py loadtest``: many 2-player matches at once
over HTTP against a running server on this machine; prints moves per second and
move latency. Everything goes through the public API, as a real client's would.

One job a module:

* ``options``    - what a run is asked to do, the shared names, ``LoadTestError``
* ``connection`` - the clients' keep-alive HTTP connection, error keys
* ``clients``    - the playing clients (threads in pairs) and how they follow the game
* ``follow``     - ``--follow stream``: the clients' game streams, read from one asyncio loop
* ``idle``       - idle SSE streams or long-polls held open during the run
* ``cpu``        - CPU accounting of the machine, the generator and the server (by process group)
* ``report``     - what a run measured, and the lines printed
* ``runner``     - one whole run: set up, warm up, measure, stop
* ``spawn``      - ``--spawn``: a production-style server of the run's own
* ``compare``    - ``--compare-bare``: runs of the move path and of a bare locked write, interleaved
* ``peer``       - ``--peer boardgameio``: ours and a peer game server (tools/peers), interleaved
* ``bare``       - the bare locked-write endpoint (a Django app the benchmark server alone installs)
"""
