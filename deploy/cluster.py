#!/usr/bin/env python3
"""The whole multi-host deployment on one Linux machine (``make cluster``).

Each host is a network namespace with its own address on a private bridge, so the
processes really talk over a network that can be cut::

    db1 db2 db3        etcd + Patroni + PostgreSQL 15 (primary, synchronous standby, standby)
    redis1 redis2      Redis master and replica, a sentinel on each
    web1 web2          the app's web server (gunicorn, config/gunicorn.conf.py)
    worker1 worker2    a Celery worker and a beat each (one beat sends: ops.beat's lease)
    lb                 HAProxy (port 443: TLS, to the web hosts; 80: a redirect to https;
                       5000: the database primary), the third sentinel

HAProxy terminates TLS with a certificate made at ``up`` by a certificate authority
of the cluster's own (``CLUSTER_DIR/tls``: never committed, made again by every
``up``); clients verify the load balancer against ``CLUSTER_DIR/tls/ca.crt``.

The engines' configuration files are the ones under ``deploy/`` (their ``$names``
filled in here); the app's environment is ``deploy/app/cluster.env``. Everything
the cluster keeps lives under ``CLUSTER_DIR`` (default /tmp/chickenfoot-cluster).

    deploy/cluster.py up            # make cluster: start it all, print the load balancer's address
    deploy/cluster.py down          # make cluster-stop: remove every namespace, link and process (idempotent)
    deploy/cluster.py status        # who is the primary, the Redis master, which processes run
    deploy/cluster.py kill HOST     # kill -9 every process of a host
    deploy/cluster.py start HOST    # start a host's processes again
    deploy/cluster.py cut HOST / join HOST   # take its link down / up
    deploy/cluster.py env HOST      # the app's environment on a host (to run manage.py there)

Needs root (namespaces), and ``deploy/install.sh``'s packages. Stdlib only: the
fault suite (tests/cluster) imports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from string import Template

DEPLOY = Path(__file__).resolve().parent
REPO = DEPLOY.parent
VENV_BIN = Path(os.environ.get("CLUSTER_VENV", REPO / ".venv")) / "bin"
CLUSTER_DIR = Path(os.environ.get("CLUSTER_DIR", "/tmp/chickenfoot-cluster"))
SUBNET = os.environ.get("CLUSTER_SUBNET", "10.77.0")  # a /24 of our own
BRIDGE = "cfbr0"
PREFIX = "cf-"  # namespaces' names; veths are "cfv-<host>"
MASTER_NAME = "chickenfoot"
PG_BIN = Path("/usr/lib/postgresql/15/bin")

HOSTS = {
    "db1": 11,
    "db2": 12,
    "db3": 13,
    "redis1": 21,
    "redis2": 22,
    "web1": 31,
    "web2": 32,
    "worker1": 41,
    "worker2": 42,
    "lb": 50,
}
DB_HOSTS = ["db1", "db2", "db3"]
REDIS_HOSTS = ["redis1", "redis2"]
SENTINEL_HOSTS = ["redis1", "redis2", "lb"]
WEB_HOSTS = ["web1", "web2"]
WORKER_HOSTS = ["worker1", "worker2"]
WEB_PORT = 8000


def address(host: str) -> str:
    return f"{SUBNET}.{HOSTS[host]}"


def namespace(host: str) -> str:
    return PREFIX + host


def veth(host: str) -> str:
    return f"cfv-{host}"


def lb_url() -> str:
    return f"https://{address('lb')}"


def tls_dir() -> Path:
    return CLUSTER_DIR / "tls"


def ca_file() -> Path:
    """The cluster's certificate authority: what clients verify the load balancer with."""
    return tls_dir() / "ca.crt"


def ssl_context() -> ssl.SSLContext:
    """A client's TLS context that trusts the cluster's authority only."""
    return ssl.create_default_context(cafile=str(ca_file()))


def log(message: str) -> None:
    print(f"cluster: {message}", file=sys.stderr, flush=True)


def run(*command: str, check: bool = True, quiet: bool = False) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip() or result.stdout.strip()}")
    return result


def in_ns(host: str, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run("ip", "netns", "exec", namespace(host), *command, check=check)


# --- State: secrets made once per cluster ----------------------------------------


def state() -> dict[str, str]:
    path = CLUSTER_DIR / "state.json"
    if path.exists():
        loaded: dict[str, str] = json.loads(path.read_text())
        return loaded
    made = {
        "secret_key": secrets.token_urlsafe(40),
        "app_password": secrets.token_hex(16),
        "superuser_password": secrets.token_hex(16),
        "replication_password": secrets.token_hex(16),
    }
    CLUSTER_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(made))
    path.chmod(0o600)
    return made


def host_dir(host: str) -> Path:
    folder = CLUSTER_DIR / host
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def render(template: str, host: str, **values: str) -> str:
    secret = state()
    common = {
        "name": host,
        "address": address(host),
        "subnet": f"{SUBNET}.0/24",
        "run_dir": str(host_dir(host)),
        "deploy_dir": str(DEPLOY),
        "master_name": MASTER_NAME,
        "etcd_cluster": ",".join(f"{h}=http://{address(h)}:2380" for h in DB_HOSTS),
        "etcd_hosts": ",".join(f"{address(h)}:2379" for h in DB_HOSTS),
        "db_hosts": ",".join(f"{address(h)}:5432" for h in DB_HOSTS),
        "sentinels": ",".join(f"{address(h)}:26379" for h in SENTINEL_HOSTS),
        "static_root": str(CLUSTER_DIR / "static"),
        **secret,
        **values,
    }
    return Template((DEPLOY / template).read_text()).substitute(common)


def app_env(host: str) -> dict[str, str]:
    """The app's environment on ``host`` (deploy/app/cluster.env, filled in)."""
    # Only what a process needs from ours (PATH, locale), then the file; CLUSTER_APP_<NAME>
    # in our environment sets <NAME> for the app (the fault suite raises a rate limit so).
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TZ")}
    for line in render("app/cluster.env", host).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            env[key] = value
    env.update({k.removeprefix("CLUSTER_APP_"): v for k, v in os.environ.items() if k.startswith("CLUSTER_APP_")})
    return env


# --- Network ----------------------------------------------------------------------


def namespaces() -> list[str]:
    out = run("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


def network_up() -> None:
    if run("ip", "link", "show", BRIDGE, check=False).returncode != 0:
        run("ip", "link", "add", BRIDGE, "type", "bridge")
        # The machine itself sits on the bridge as .1, to reach the load balancer
        # (and the fault suite, every host); nothing is routed beyond the bridge.
        run("ip", "addr", "add", f"{SUBNET}.1/24", "dev", BRIDGE)
        run("ip", "link", "set", BRIDGE, "up")
    existing = set(namespaces())
    for host in HOSTS:
        ns = namespace(host)
        if ns in existing:
            continue
        run("ip", "netns", "add", ns)
        run("ip", "link", "add", veth(host), "type", "veth", "peer", "name", "eth0", "netns", ns)
        run("ip", "link", "set", veth(host), "master", BRIDGE, "up")
        in_ns(host, "ip", "addr", "add", f"{address(host)}/24", "dev", "eth0")
        in_ns(host, "ip", "link", "set", "eth0", "up")
        in_ns(host, "ip", "link", "set", "lo", "up")


def cut(host: str) -> None:
    """Take the host's link down: nothing reaches it, it reaches nothing."""
    run("ip", "link", "set", veth(host), "down")


def join(host: str) -> None:
    run("ip", "link", "set", veth(host), "up")


def block(host: str, others: list[str]) -> None:
    """Cut ``host`` off from ``others`` only (both ways: its packets to them are dropped)."""
    for other in others:
        in_ns(host, "ip", "route", "replace", "blackhole", f"{address(other)}/32")
        in_ns(other, "ip", "route", "replace", "blackhole", f"{address(host)}/32")


def unblock(host: str, others: list[str]) -> None:
    for other in others:
        in_ns(host, "ip", "route", "del", "blackhole", f"{address(other)}/32", check=False)
        in_ns(other, "ip", "route", "del", "blackhole", f"{address(host)}/32", check=False)


# --- Processes --------------------------------------------------------------------


def spawn(host: str, name: str, command: list[str], env: dict[str, str] | None = None, user: str = "") -> int:
    """Start ``command`` in the host's namespace, detached, its output in <host>/<name>.log."""
    logfile = open(host_dir(host) / f"{name}.log", "ab")  # noqa: SIM115 - the child keeps it
    prefix = ["ip", "netns", "exec", namespace(host)]
    if user:
        prefix += ["runuser", "-u", user, "--"]
    process = subprocess.Popen(
        prefix + command,
        stdout=logfile,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env or dict(os.environ),
        cwd=REPO,
        start_new_session=True,
    )
    logfile.close()
    (host_dir(host) / f"{name}.pid").write_text(str(process.pid))
    return process.pid


def pids(host: str) -> list[int]:
    out = run("ip", "netns", "pids", namespace(host), check=False).stdout
    return [int(pid) for pid in out.split()]


def kill(host: str) -> None:
    """kill -9 every process in the host's namespace (what a power cut does to them)."""
    for _ in range(50):
        found = pids(host)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


def kill_named(host: str, needle: str) -> list[int]:
    """kill -9 the host's processes whose command line contains ``needle``."""
    killed = []
    for pid in pids(host):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if needle in cmdline:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:
                pass
    return killed


def start_db(host: str) -> None:
    folder = host_dir(host)
    etcd_env = dict(os.environ)
    etcd_data = folder / "etcd"
    for line in render("etcd/etcd.env", host, data_dir=str(etcd_data)).splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            etcd_env[key] = value
    if etcd_data.exists():
        etcd_env["ETCD_INITIAL_CLUSTER_STATE"] = "existing"
    spawn(host, "etcd", ["etcd"], env=etcd_env)
    archive = CLUSTER_DIR / "wal-archive"
    archive.mkdir(exist_ok=True)
    shutil.chown(archive, "postgres", "postgres")
    shutil.chown(folder, "postgres", "postgres")
    config = folder / "patroni.yml"
    config.write_text(
        render(
            "patroni/patroni.yml",
            host,
            data_dir=str(folder / "data"),
            archive_command=f"test ! -f {archive}/%f && cp %p {archive}/%f",
        )
    )
    shutil.chown(config, "postgres", "postgres")
    config.chmod(0o600)
    spawn(host, "patroni", ["patroni", str(config)], user="postgres")


def redis_master() -> str | None:
    """The master's address as the sentinels see it (None when none answers)."""
    for host in SENTINEL_HOSTS:
        result = in_ns(
            host,
            "redis-cli",
            "-h",
            address(host),
            "-p",
            "26379",
            "--raw",
            "sentinel",
            "get-master-addr-by-name",
            MASTER_NAME,
            check=False,
        )
        lines = result.stdout.split()
        if result.returncode == 0 and len(lines) == 2:
            return lines[0]
    return None


def start_redis(host: str) -> None:
    master = redis_master() or address(REDIS_HOSTS[0])
    follow = "" if master == address(host) else f"replicaof {master} 6379"
    config = host_dir(host) / "redis.conf"
    config.write_text(render("redis/redis.conf", host, replicaof=follow))
    spawn(host, "redis", ["redis-server", str(config)])


def start_sentinel(host: str) -> None:
    config = host_dir(host) / "sentinel.conf"
    if not config.exists():  # Sentinel keeps what it learnt in it: never overwrite
        config.write_text(render("redis/sentinel.conf", host, master_address=address(REDIS_HOSTS[0])))
    spawn(host, "sentinel", ["redis-sentinel", str(config)])


def make_certificates() -> None:
    """A certificate authority of the cluster's own and the load balancer's certificate
    signed by it (for its address), in ``tls_dir()``; HAProxy reads ``lb.pem``
    (certificate, then key). Made with openssl at every ``up``, never committed."""
    folder = tls_dir()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    ca_key, ca_crt = folder / "ca.key", ca_file()
    key, csr, crt = folder / "lb.key", folder / "lb.csr", folder / "lb.crt"
    ext = folder / "lb.ext"
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ca_ext = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
    run("openssl", "req", "-x509", *ec, "-keyout", str(ca_key), "-out", str(ca_crt), "-days", "30",
        "-subj", "/CN=chickenfoot cluster CA", *ca_ext)  # fmt: skip
    run("openssl", "req", *ec, "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={address('lb')}")
    ext.write_text(
        f"subjectAltName=IP:{address('lb')}\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
    )
    run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca_crt), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(crt), "-days", "30", "-extfile", str(ext))  # fmt: skip
    pem = folder / "lb.pem"
    pem.write_text(crt.read_text() + key.read_text())
    pem.chmod(0o600)
    ca_crt.chmod(0o644)


def start_lb() -> None:
    config = host_dir("lb") / "haproxy.cfg"
    web = "\n".join(f"    server {h} {address(h)}:{WEB_PORT} check" for h in WEB_HOSTS)
    db = "\n".join(f"    server {h} {address(h)}:5432 check port 8008" for h in DB_HOSTS)
    if not (tls_dir() / "lb.pem").exists():
        make_certificates()
    config.write_text(
        render("haproxy/haproxy.cfg", "lb", web_servers=web, db_servers=db, tls_pem=str(tls_dir() / "lb.pem"))
    )
    run("haproxy", "-c", "-q", "-f", str(config))
    spawn("lb", "haproxy", ["haproxy", "-W", "-db", "-f", str(config)])


def start_web(host: str) -> None:
    env = app_env(host) | {"HOST": address(host), "PORT": str(WEB_PORT), "WEB_CONCURRENCY": "2"}
    spawn(host, "web", [str(VENV_BIN / "gunicorn"), "-c", "config/gunicorn.conf.py"], env=env)


def start_worker(host: str) -> None:
    env = app_env(host)
    schedule = host_dir(host) / "beat-schedule"
    celery = str(VENV_BIN / "celery")
    spawn(host, "worker", [celery, "-A", "config", "worker", "-l", "info", "-c", "2", "-n", f"w@{host}"], env=env)
    spawn(host, "beat", [celery, "-A", "config", "beat", "-l", "info", "-s", str(schedule)], env=env)


def start(host: str) -> None:
    if host in DB_HOSTS:
        start_db(host)
    if host in REDIS_HOSTS:
        start_redis(host)
    if host in SENTINEL_HOSTS:
        start_sentinel(host)
    if host == "lb":
        start_lb()
    if host in WEB_HOSTS:
        start_web(host)
    if host in WORKER_HOSTS:
        start_worker(host)


# --- Waiting ----------------------------------------------------------------------


def wait(what: str, check: object, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{what} did not happen within {timeout:.0f} s (logs under {CLUSTER_DIR})")


def patroni(host: str, path: str = "/patroni") -> dict[str, object]:
    with urllib.request.urlopen(f"http://{address(host)}:8008{path}", timeout=2) as response:
        loaded: dict[str, object] = json.loads(response.read())
        return loaded


def primary() -> str | None:
    """The database host that is primary now (None during a failover)."""
    for host in DB_HOSTS:
        try:
            if patroni(host).get("role") in ("master", "primary") and patroni(host).get("state") == "running":
                return host
        except Exception:
            continue
    return None


def cluster_members() -> list[dict[str, object]]:
    for host in DB_HOSTS:
        try:
            members = patroni(host, "/cluster")["members"]
            return list(members)  # type: ignore[call-overload]
        except Exception:
            continue
    return []


def sync_standby() -> str | None:
    for member in cluster_members():
        if member.get("role") == "sync_standby" and member.get("state") in ("running", "streaming"):
            return str(member["name"])
    return None


def psql(host: str, sql: str, database: str = "postgres") -> str:
    result = in_ns(
        host,
        "runuser",
        "-u",
        "postgres",
        "--",
        "psql",
        "-h",
        str(host_dir(host)),
        "-d",
        database,
        "-v",
        "ON_ERROR_STOP=1",
        "-tAc",
        sql,
    )
    return result.stdout.strip()


def healthy(host: str) -> bool:
    """The health check through the load balancer (``lb``: over HTTPS, verified
    against the cluster's authority) or of one web host (plain HTTP, as HAProxy asks)."""
    if host == "lb":
        url, context = f"{lb_url()}/api/v1/health/", ssl_context()
    else:
        url, context = f"http://{address(host)}:{WEB_PORT}/api/v1/health/", None
    with urllib.request.urlopen(url, timeout=5, context=context) as response:
        return bool(response.status == 200)


def answers(host: str) -> bool:
    """Does the web host's server answer its health check (200, or 503 with a report)?"""
    try:
        return healthy(host)
    except urllib.error.HTTPError as error:
        return error.code == 503


def repair() -> None:
    """Start the processes of every host that has none (after a run that stopped half-way)."""
    for host in HOSTS:
        if not pids(host):
            log(f"{host} has no process: starting it")
            start(host)


def manage(host: str, *args: str) -> None:
    result = subprocess.run(
        ["ip", "netns", "exec", namespace(host), str(VENV_BIN / "python"), "manage.py", *args],
        env=app_env(host),
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} on {host} failed:\n{result.stdout}\n{result.stderr}")


# --- Commands ---------------------------------------------------------------------


def up() -> None:
    if os.geteuid() != 0:
        raise SystemExit("make cluster needs root (network namespaces)")
    if namespaces():
        log("a cluster (or what is left of one) exists: removing it first")
        down()
    if CLUSTER_DIR.exists():
        shutil.rmtree(CLUSTER_DIR)
    CLUSTER_DIR.mkdir(parents=True)
    CLUSTER_DIR.chmod(0o755)
    started = time.monotonic()
    make_certificates()
    log(f"tls: the load balancer's certificate, and the authority to verify it: {ca_file()}")
    network_up()
    log(f"network: {len(HOSTS)} namespaces on bridge {BRIDGE} ({SUBNET}.0/24)")
    for host in DB_HOSTS:
        start_db(host)
    for host in REDIS_HOSTS:
        start_redis(host)
    for host in SENTINEL_HOSTS:
        start_sentinel(host)
    wait("a PostgreSQL primary", lambda: primary() is not None, timeout=180)
    leader = primary()
    assert leader is not None
    secret = state()
    psql(leader, f"CREATE ROLE chickenfoot LOGIN PASSWORD '{secret['app_password']}'")
    psql(leader, "CREATE DATABASE chickenfoot OWNER chickenfoot")
    log(f"database: {leader} is the primary")
    wait("a synchronous standby", lambda: sync_standby() is not None, timeout=180)
    log(f"database: {sync_standby()} is the synchronous standby")
    wait("the Redis master", lambda: redis_master() is not None, timeout=60)
    manage("web1", "migrate", "--noinput")
    log("app: migrated")
    try:
        manage("web1", "collectstatic", "--noinput")
    except RuntimeError as error:  # the API works without them; the web page does not
        log(f"collectstatic failed, the web page will not load (the API does): {str(error).strip().splitlines()[-1]}")
    start_lb()
    for host in WEB_HOSTS:
        start_web(host)
    for host in WORKER_HOSTS:
        start_worker(host)
    for host in WEB_HOSTS:
        wait(f"{host}'s health", lambda h=host: healthy(h), timeout=180)
    wait("the load balancer", lambda: healthy("lb"), timeout=60)
    log(f"up in {time.monotonic() - started:.0f} s; logs under {CLUSTER_DIR}")
    log(f"clients verify it with {ca_file()} (e.g. curl --cacert {ca_file()} {lb_url()}/api/v1/health/)")
    print(lb_url())


def down() -> None:
    """Remove every namespace, link and process of the cluster: also what a crashed run left."""
    for ns in namespaces():
        kill(ns.removeprefix(PREFIX))
        run("ip", "netns", "del", ns, check=False)
    for host in HOSTS:  # a veth whose namespace went away goes with it; a half-made one may not
        run("ip", "link", "del", veth(host), check=False)
    run("ip", "link", "del", BRIDGE, check=False)
    log("stopped: no namespace, link or process of the cluster is left")


def status() -> None:
    print(f"load balancer: {lb_url()} (certificate authority: {ca_file()})")
    print(f"database primary: {primary()}; synchronous standby: {sync_standby()}")
    print(f"redis master: {redis_master()}")
    for host in HOSTS:
        names = []
        for pid in pids(host):
            with contextlib.suppress(OSError):
                names.append(Path(f"/proc/{pid}/comm").read_text().strip())
        print(f"{host:8} {address(host):12} {', '.join(sorted(set(names))) or '(nothing running)'}")


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    command, args = argv[0], argv[1:]
    if command == "up":
        up()
    elif command == "down":
        down()
    elif command == "status":
        status()
    elif command == "kill":
        kill(args[0])
    elif command == "start":
        start(args[0])
    elif command == "cut":
        cut(args[0])
    elif command == "join":
        join(args[0])
    elif command == "env":
        for key, value in sorted(app_env(args[0]).items()):
            if key in os.environ and os.environ[key] == value:
                continue
            print(f"{key}={value}")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
