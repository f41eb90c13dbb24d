"""A pynetbox-like client for the restart bench: one requests.Session (kept-alive connections), round-robin
over the instances, a refused request moved on to the next one. Runs until SIGTERM, then prints its tally
as JSON on stdout. Arguments: token, health-check interval in ms (0: none), then the instance URLs. With an
interval, it routes as a health-checking load balancer does (see health-checks.ts): each instance's
/api/status/ is polled on a fixed schedule on a connection of its own, and only instances whose last check
answered 200 get requests."""
import json
import signal
import sys
import threading
import time
import requests

token, interval_ms, urls = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
healthy = {url: True for url in urls}


def poll(url):
    lock = threading.Lock()
    state = {"started": 0, "applied": 0}

    def check(serial):
        try:
            ok = requests.get(f"{url}/api/status/", timeout=interval_ms / 1000).status_code == 200
        except requests.exceptions.RequestException:
            ok = False
        with lock:
            if serial < state["applied"]:
                return
            state["applied"] = serial
            healthy[url] = ok

    nxt = time.monotonic()
    while True:
        state["started"] += 1
        threading.Thread(target=check, args=(state["started"],), daemon=True).start()
        nxt += interval_ms / 1000
        time.sleep(max(0, nxt - time.monotonic()))


if interval_ms > 0:
    for u in urls:
        threading.Thread(target=poll, args=(u,), daemon=True).start()
tally = {"answered": 0, "5xx": 0, "refused": 0, "lost on a reused connection": 0, "lost on a new connection": 0, "hung": 0}
stopping = False


def stop(*_):
    global stopping
    stopping = True


signal.signal(signal.SIGTERM, stop)
session = requests.Session()
session.headers.update({"Authorization": f"Token {token}", "Accept": "application/json"})
n = 0
nxt = 0
while not stopping:
    n += 1
    attempts = 0
    while attempts < len(urls) and not stopping:
        routable = [u for u in urls if healthy[u]]
        if not routable:
            time.sleep(0.02)
            continue
        attempts += 1
        url = routable[nxt % len(routable)]
        nxt += 1
        try:
            if n % 5:
                r = session.get(f"{url}/api/dcim/sites/", params={"limit": 10}, timeout=30)
            else:
                name = f"restart-py-{n}"
                r = session.post(f"{url}/api/dcim/sites/", json={"name": name, "slug": name}, timeout=30)
            tally["5xx" if r.status_code >= 500 else "answered"] += 1
            break
        except requests.exceptions.Timeout:
            tally["hung"] += 1
            break
        except requests.exceptions.ConnectionError as e:
            text = repr(e)
            if "Connection refused" in text or "ConnectionRefusedError" in text:
                tally["refused"] += 1
                continue
            # urllib3 does not tell a reused connection from a new one here; a reset is lost either way.
            tally["lost on a reused connection"] += 1
            break
print(json.dumps(tally))
