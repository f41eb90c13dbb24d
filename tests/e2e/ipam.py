#!/usr/bin/python3
"""End-to-end check of NetBox 3.7's allocation endpoints with Debian's python3-pynetbox (7.0), as its
users call them: prefix.available_prefixes.list() / .create(), prefix.available_ips.list() /
.create() (one object and a list), ip_range.available_ips, vlan_group.available_vlans, and the ASN
range's available-asns (pynetbox 7.0 has no attribute for it: requests). Also the IPAM types that came
with them (ASNs, services, route targets on VRFs) read back through pynetbox.

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/ipam.py

Every mismatch is printed as `FAIL: ...` and the script exits 1 if anything failed. It removes what it
made at the end (E2E_KEEP=1 leaves it in place), and what an interrupted or kept earlier run left behind
at the start, so it can run again.
"""
import os
import sys

import pynetbox
import requests

URL = os.environ.get("NETBOX_URL", "http://localhost:8000")
TOKEN = os.environ.get("NETBOX_TOKEN", "")
TAG = "e2e-ipam"

failures = []
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
        print(f"FAIL: {msg}")


nb = pynetbox.api(URL, token=TOKEN)
http = requests.Session()
http.headers.update({"Authorization": f"Token {TOKEN}", "Accept": "application/json"})


def clean():
    """Removes what this script makes (by its description), children before parents."""
    for ep in (nb.ipam.ip_addresses, nb.ipam.vlans, nb.ipam.asns, nb.ipam.services, nb.ipam.prefixes, nb.ipam.ip_ranges,
               nb.ipam.vlan_groups, nb.ipam.asn_ranges, nb.ipam.vrfs, nb.ipam.route_targets):
        for obj in sorted(ep.filter(description=TAG), key=lambda o: -o.id):
            obj.delete()
    for rir in nb.ipam.rirs.filter(slug="e2e-ipam-rir"):
        rir.delete()


clean()

# ------------------------------------------------------------ prefixes
parent = nb.ipam.prefixes.create(prefix="10.95.0.0/16", status="container", description=TAG)
free = list(parent.available_prefixes.list())
check([str(p) for p in free] == ["10.95.0.0/16"], f"available_prefixes of an empty /16: {[str(p) for p in free]}")
check(free and free[0].family == 4, "available prefix family")

child = parent.available_prefixes.create({"prefix_length": 24, "description": TAG, "status": "active"})
check(str(child) == "10.95.0.0/24", f"first /24 allocated: {child}")
check(child.status.value == "active" and child.description == TAG, "fields pass through to the allocated prefix")
two = parent.available_prefixes.create([{"prefix_length": 26, "description": TAG}, {"prefix_length": 25, "description": TAG}])
check([str(p) for p in two] == ["10.95.1.0/26", "10.95.1.128/25"], f"a list allocates in order: {[str(p) for p in two]}")
free = [str(p) for p in parent.available_prefixes.list()]
check(free[:2] == ["10.95.1.64/26", "10.95.2.0/23"], f"free space after allocation: {free[:3]}")

# ------------------------------------------------------------ addresses in a prefix
ips = list(child.available_ips.list())
check(len(ips) == 50 and str(ips[0]) == "10.95.0.1/24", f"available_ips of the /24 (first page of 50): {len(ips)} {ips[:1]}")
one = child.available_ips.create({"description": TAG, "dns_name": "e2e-ipam-1.example.net", "status": "reserved"})
check(str(one) == "10.95.0.1/24" and one.dns_name == "e2e-ipam-1.example.net" and one.status.value == "reserved", f"one address allocated: {one}")
more = child.available_ips.create([{"description": TAG}, {"description": TAG}])
check([str(a) for a in more] == ["10.95.0.2/24", "10.95.0.3/24"], f"two addresses allocated in order: {[str(a) for a in more]}")
check(str(next(iter(child.available_ips.list()))) == "10.95.0.4/24", "the next free address moved on")

small = nb.ipam.prefixes.create(prefix="10.95.9.0/30", description=TAG)
small.available_ips.create([{"description": TAG}, {"description": TAG}])
try:
    small.available_ips.create({"description": TAG})
    check(False, "allocating from a full /30 must fail")
except (pynetbox.RequestError, pynetbox.core.query.AllocationError) as e:
    # pynetbox 7.0 raises AllocationError for NetBox's 409 on an allocation endpoint.
    check(e.req.status_code == 409, f"a full prefix answers 409, got {e.req.status_code}")

# ------------------------------------------------------------ an IP range
rng = nb.ipam.ip_ranges.create(start_address="10.95.3.10/24", end_address="10.95.3.19/24", description=TAG)
check(rng.size == 10 and str(rng) == "10.95.3.10-19/24", f"IP range size and display: {rng.size} {rng}")
got = rng.available_ips.create({"description": TAG})
check(str(got) == "10.95.3.10/24", f"first address of the range: {got}")
check(len(list(rng.available_ips.list())) == 9, "nine addresses left in the range")

# ------------------------------------------------------------ VLANs
vg = nb.ipam.vlan_groups.create(name="e2e ipam", slug="e2e-ipam", min_vid=100, max_vid=104, description=TAG)
check([v.vid for v in vg.available_vlans.list()] == [100, 101, 102, 103, 104], "available VLAN IDs of the group")
vlan = vg.available_vlans.create({"name": "e2e-v1", "description": TAG})
check(vlan.vid == 100 and vlan.group.id == vg.id, f"VLAN allocated in the group: {vlan.vid}")
vlans = vg.available_vlans.create([{"name": "e2e-v2", "description": TAG}, {"name": "e2e-v3", "description": TAG}])
check([v.vid for v in vlans] == [101, 102], "two VLANs allocated in order")

# ------------------------------------------------------------ ASNs
rir = nb.ipam.rirs.create(name="E2E IPAM RIR", slug="e2e-ipam-rir")
ar = nb.ipam.asn_ranges.create(name="e2e private", slug="e2e-private", rir=rir.id, start=64512, end=64520, description=TAG)
r = http.get(f"{URL}/api/ipam/asn-ranges/{ar.id}/available-asns/?limit=2")
check(r.status_code == 200 and [a["asn"] for a in r.json()] == [64512, 64513], f"available ASNs: {r.status_code} {r.text[:200]}")
r = http.post(f"{URL}/api/ipam/asn-ranges/{ar.id}/available-asns/", json={"description": TAG})
check(r.status_code == 201 and r.json()["asn"] == 64512 and r.json()["display"] == "AS64512", f"ASN allocated: {r.status_code} {r.text[:200]}")
asn = nb.ipam.asns.get(asn=64512)
check(asn is not None and asn.rir.id == rir.id, "the allocated ASN reads back through pynetbox")

# ------------------------------------------------------------ route targets and VRFs
rt = nb.ipam.route_targets.create(name="65095:1", description=TAG)
vrf = nb.ipam.vrfs.create(name="e2e ipam", rd="65095:100", import_targets=[rt.id], export_targets=[rt.id], description=TAG)
check([t.name for t in vrf.import_targets] == ["65095:1"], "VRF import targets")
check([t.id for t in nb.ipam.route_targets.filter(importing_vrf_id=vrf.id)] == [rt.id], "route targets by importing VRF")

if os.environ.get("E2E_KEEP") != "1":
    clean()
    check(not list(nb.ipam.prefixes.filter(description=TAG)), "clean-up removed the prefixes")

print(f"ipam.py: {checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
