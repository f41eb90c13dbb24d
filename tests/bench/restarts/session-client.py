"""A pynetbox-like client for the restart bench: one requests.Session (kept-alive connections), round-robin
over the instances, a refused request moved on to the next one. Runs until SIGTERM, then prints its tally
as JSON on stdout. Arguments: token, then the instance URLs."""
import json
import signal
import sys
import requests

token, urls = sys.argv[1], sys.argv[2:]
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
    for _ in urls:
        url = urls[nxt % len(urls)]
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
