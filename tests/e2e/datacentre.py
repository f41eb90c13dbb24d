#!/usr/bin/python3
"""End-to-end check with Debian's python3-pynetbox (7.0): build a small data
centre through the client, read it back with filters, change it with save(),
bulk update and bulk delete, check every value, then tear it down.

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/datacentre.py

E2E_MAX_PAGE_SIZE tells the script the server's MAX_PAGE_SIZE (run.sh starts
the server with 50) so the paging checks know how a `limit=0` list is cut.
E2E_KEEP=1 leaves the data in place instead of deleting it at the end; the
next run first removes what such a run left (by this script's names), so it
runs again on a database holding it (a kept one, or one imported from a server
the script ran on: tests/import/e2e-on-imported-target.sh).

Every mismatch is printed as `FAIL: ...`; the script goes on checking what
does not depend on the failed step and exits 1 if anything failed. A request
the server refuses stops the script (later steps need its result) and prints
the method, URL, body sent, status and response.
"""
import json
import os
import sys
import traceback

import pynetbox
import requests

URL = os.environ.get("NETBOX_URL", "http://localhost:8000")
TOKEN = os.environ.get("NETBOX_TOKEN", "")
MAX_PAGE_SIZE = int(os.environ.get("E2E_MAX_PAGE_SIZE", "1000"))
KEEP = os.environ.get("E2E_KEEP") == "1"

failures = []
checks = 0
MISSING = "<field missing from the response>"


def check(cond, msg):
    """A soft assertion: record the failure and keep going."""
    global checks
    checks += 1
    try:
        assert cond, msg
    except AssertionError as e:
        failures.append(str(e))
        print("FAIL: %s" % e, flush=True)


def eq(actual, expected, what):
    check(actual == expected, "%s: expected %r, got %r" % (what, expected, actual))


def ref_id(value):
    """Id of a nested object as pynetbox hands it back (Record, dict or None)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return value.get("id")
    return getattr(value, "id", value)


def choice(value):
    """A NetBox choice field reads as {"value": ..., "label": ...}."""
    if isinstance(value, dict):
        return value.get("value")
    if hasattr(value, "value"):
        return value.value
    return value


def step(title):
    print("--- %s" % title, flush=True)


def describe_request_error(e):
    r = e.req
    body = r.request.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    return "%s %s\n  sent: %s\n  got:  HTTP %s %s" % (
        r.request.method, r.request.url, body, r.status_code, r.text[:2000])


nb = pynetbox.api(URL, token=TOKEN, threading=False)
http = requests.Session()
http.headers.update({"Authorization": "Token %s" % TOKEN, "Accept": "application/json"})


def raw_get(path, **params):
    r = http.get("%s/api/%s" % (URL.rstrip("/"), path), params=params)
    check(r.status_code == 200, "GET /api/%s %r: expected 200, got %s %s" % (path, params, r.status_code, r.text[:500]))
    return r.json()


def delete_all(endpoint, **filters):
    """Deletes every object the filter finds, one by one (used by clean(): nothing to check there)."""
    for obj in list(endpoint.filter(**filters)):
        obj.delete()


def clean():
    """Removes what an earlier run with E2E_KEEP=1 left, by this script's names, children before parents."""
    for label in ("PY-C1", "PY-TRANSIT"):
        delete_all(nb.dcim.cables, label=label)
    for name in ("py-leaf1", "py-leaf2"):
        delete_all(nb.dcim.devices, name=name)  # with their interfaces and addresses
    delete_all(nb.virtualization.virtual_machines, name="py-vm1")
    delete_all(nb.virtualization.clusters, name="PY Cluster 1")
    delete_all(nb.virtualization.cluster_types, slug="py-vmware-vsphere")
    delete_all(nb.circuits.circuits, cid="PY-CID-0001")  # with its terminations
    delete_all(nb.circuits.circuit_types, slug="py-internet-transit")
    delete_all(nb.circuits.providers, slug="py-transit-co")
    # (a filter naming a missing object by slug answers 400, as in NetBox: by id, once found)
    for slug in ("py-fabric-vlans", "py-lab-vlans"):
        for group in list(nb.ipam.vlan_groups.filter(slug=slug)):
            delete_all(nb.ipam.vlans, group_id=group.id)
            group.delete()
    delete_all(nb.ipam.vlans, name="py-ams2-only")
    delete_all(nb.ipam.ip_addresses, parent="10.99.0.0/16")
    delete_all(nb.ipam.prefixes, within_include="10.99.0.0/16")
    delete_all(nb.dcim.racks, name="PY R01")
    for slug in ("py-ams1", "py-ams2"):
        delete_all(nb.dcim.sites, slug=slug)
    delete_all(nb.dcim.platforms, slug="py-junos")
    delete_all(nb.dcim.device_roles, slug="py-leaf")
    delete_all(nb.dcim.device_types, slug="py-qfx5120-48y")
    delete_all(nb.dcim.manufacturers, slug="py-juniper")
    for slug in ("py-ams-metro", "py-europe"):
        delete_all(nb.dcim.regions, slug=slug)


def main():
    step("what an earlier run with E2E_KEEP=1 left, removed")
    clean()

    # ------------------------------------------------------------------ basics
    step("API root and version")
    eq(nb.version, "3.7", "API-Version header (nb.version)")
    status = nb.status()
    eq(status.get("netbox-version", "")[:3], "3.7", "status netbox-version")

    # --------------------------------------------------------------- organise
    step("regions and site")
    europe = nb.dcim.regions.create(name="PY Europe", slug="py-europe", description="pynetbox e2e")
    metro = nb.dcim.regions.create(name="PY Amsterdam Metro", slug="py-ams-metro", parent=europe.id)
    eq(metro.parent.id, europe.id, "child region parent id")
    eq(metro.parent.slug, "py-europe", "child region parent slug")
    eq(getattr(metro, "_depth", MISSING), 1, "child region _depth")
    eq(getattr(nb.dcim.regions.get(europe.id), "_depth", MISSING), 0, "root region _depth")

    site = nb.dcim.sites.create(
        name="PY AMS1", slug="py-ams1", status="active", region=metro.id,
        facility="Equinix AM1", time_zone="Europe/Amsterdam",
        description="pynetbox data centre", physical_address="Luttenbergweg 4, Amsterdam",
        latitude=52.303, longitude=4.939,
    )
    site = nb.dcim.sites.get(site.id)
    eq(site.name, "PY AMS1", "site name")
    eq(site.slug, "py-ams1", "site slug")
    eq(choice(site.status), "active", "site status")
    eq(site.status.label, "Active", "site status label")
    eq(ref_id(site.region), metro.id, "site region")
    eq(site.facility, "Equinix AM1", "site facility")
    eq(site.time_zone, "Europe/Amsterdam", "site time_zone")
    eq(site.physical_address, "Luttenbergweg 4, Amsterdam", "site physical_address")
    eq(float(site.latitude), 52.303, "site latitude")
    eq(float(site.longitude), 4.939, "site longitude")
    eq(site.display, "PY AMS1", "site display")
    check(site.url.endswith("/api/dcim/sites/%d/" % site.id), "site url is its detail URL: %r" % site.url)

    # region_id matches sites in child regions (NetBox's TreeNodeMultipleChoiceFilter)
    # a second, empty site: every site/region filter below has something to leave out
    site2 = nb.dcim.sites.create(name="PY AMS2", slug="py-ams2", status="planned", region=europe.id)
    eq(sorted(s.slug for s in nb.dcim.sites.filter(region_id=europe.id)), ["py-ams1", "py-ams2"], "sites filter region_id=<parent region> (descendants)")
    eq(sorted(s.slug for s in nb.dcim.sites.filter(region_id=metro.id)), ["py-ams1"], "sites filter region_id=<child region>")
    eq(sorted(s.slug for s in nb.dcim.sites.filter(region="py-europe")), ["py-ams1", "py-ams2"], "sites filter region=<parent slug> (descendants)")
    eq(sorted(s.slug for s in nb.dcim.sites.filter(region="py-ams-metro")), ["py-ams1"], "sites filter region=<child slug>")
    eq(sorted(s.slug for s in nb.dcim.sites.filter(region_id=europe.id, status="planned")), ["py-ams2"], "sites filter region_id + status")
    eq(getattr(nb.dcim.regions.get(europe.id), "site_count", MISSING), 2, "region site_count (with descendants)")
    eq([s.id for s in nb.dcim.sites.filter(slug="py-ams1")], [site.id], "sites filter slug")

    step("rack, manufacturer, device type, role, platform")
    rack = nb.dcim.racks.create(name="PY R01", site=site.id, status="active", u_height=42,
                                facility_id="AM1-R01", asset_tag="PY-RACK-01")
    rack = nb.dcim.racks.get(rack.id)
    eq(rack.name, "PY R01", "rack name")
    eq(ref_id(rack.site), site.id, "rack site")
    eq(rack.u_height, 42, "rack u_height")
    eq(rack.facility_id, "AM1-R01", "rack facility_id")
    eq(choice(rack.status), "active", "rack status")
    eq(choice(rack.width), 19, "rack width default")
    eq([r.id for r in nb.dcim.racks.filter(site_id=site.id)], [rack.id], "racks filter site_id")

    mfr = nb.dcim.manufacturers.create(name="PY Juniper", slug="py-juniper")
    eq(mfr.slug, "py-juniper", "manufacturer slug")
    dtype = nb.dcim.device_types.create(manufacturer=mfr.id, model="PY QFX5120-48Y", slug="py-qfx5120-48y",
                                        u_height=1, is_full_depth=True, part_number="QFX5120-48Y-AFO")
    dtype = nb.dcim.device_types.get(dtype.id)
    eq(dtype.model, "PY QFX5120-48Y", "device type model")
    eq(str(dtype), "PY QFX5120-48Y", "device type str()")
    eq(ref_id(dtype.manufacturer), mfr.id, "device type manufacturer")
    eq(float(dtype.u_height), 1.0, "device type u_height")
    eq(dtype.is_full_depth, True, "device type is_full_depth")
    eq(dtype.part_number, "QFX5120-48Y-AFO", "device type part_number")

    role = nb.dcim.device_roles.create(name="PY Leaf", slug="py-leaf", color="2196f3", vm_role=True)
    eq(role.color, "2196f3", "device role color")
    eq(role.vm_role, True, "device role vm_role")
    platform = nb.dcim.platforms.create(name="PY Junos", slug="py-junos", manufacturer=mfr.id)
    eq(ref_id(platform.manufacturer), mfr.id, "platform manufacturer")

    # ----------------------------------------------------------------- devices
    step("devices")
    leaf1 = nb.dcim.devices.create(
        name="py-leaf1", device_type=dtype.id, role=role.id, platform=platform.id,
        site=site.id, rack=rack.id, position=40, face="front", status="active",
        serial="PYSN0001", local_context_data={"ntp": ["192.0.2.1"]},
    )
    leaf2 = nb.dcim.devices.create(
        name="py-leaf2", device_type=dtype.id, role=role.id, platform=platform.id,
        site=site.id, rack=rack.id, position=39, face="front", status="planned",
        serial="PYSN0002",
    )
    for dev, name, pos, status_, serial in ((leaf1, "py-leaf1", 40, "active", "PYSN0001"),
                                           (leaf2, "py-leaf2", 39, "planned", "PYSN0002")):
        d = nb.dcim.devices.get(dev.id)
        eq(d.name, name, "%s name" % name)
        eq(ref_id(d.device_type), dtype.id, "%s device_type" % name)
        eq(d.device_type.model, "PY QFX5120-48Y", "%s device_type.model" % name)
        eq(ref_id(d.role), role.id, "%s role" % name)
        eq(ref_id(getattr(d, "device_role", None)), role.id, "%s device_role (read alias of role)" % name)
        eq(ref_id(d.platform), platform.id, "%s platform" % name)
        eq(ref_id(d.site), site.id, "%s site" % name)
        eq(ref_id(d.rack), rack.id, "%s rack" % name)
        eq(float(d.position), float(pos), "%s position" % name)
        eq(choice(d.face), "front", "%s face" % name)
        eq(choice(d.status), status_, "%s status" % name)
        eq(d.serial, serial, "%s serial" % name)
        eq(d.primary_ip4, None, "%s primary_ip4 before assignment" % name)
    eq(nb.dcim.devices.get(leaf1.id).local_context_data, {"ntp": ["192.0.2.1"]}, "py-leaf1 local_context_data")
    # py-leaf2 has no local data and the same site, role, platform and type: what contexts the database holds
    # (none when fresh; a global one imported with it) apply to both, and py-leaf1's local data goes over them
    contexts = nb.dcim.devices.get(leaf2.id).config_context
    eq(nb.dcim.devices.get(leaf1.id).config_context, {**contexts, "ntp": ["192.0.2.1"]}, "py-leaf1 config_context (local data merged)")
    eq(sorted(d.name for d in nb.dcim.devices.filter(site="py-ams1")), ["py-leaf1", "py-leaf2"], "devices filter site=<slug>")
    eq(sorted(d.name for d in nb.dcim.devices.filter(site_id=site.id)), ["py-leaf1", "py-leaf2"], "devices filter site_id")
    eq(sorted(d.name for d in nb.dcim.devices.filter(region_id=europe.id)), ["py-leaf1", "py-leaf2"], "devices filter region_id=<parent region>")
    eq([d.name for d in nb.dcim.devices.filter(site_id=site2.id)], [], "devices filter site_id=<empty site>")
    eq(sorted(d.name for d in nb.dcim.devices.filter(rack_id=rack.id, status="planned")), ["py-leaf2"], "devices filter rack_id + status")
    eq(sorted(d.name for d in nb.dcim.devices.filter(role="py-leaf")), ["py-leaf1", "py-leaf2"], "devices filter role=<slug>")
    # scoped to the site, as the filters below: a database holding other data may have other *leaf1 devices
    eq(sorted(d.name for d in nb.dcim.devices.filter(site_id=site.id, name__ic="LEAF1")), ["py-leaf1"], "devices filter name__ic")
    eq(nb.dcim.devices.get(name="py-leaf2").id, leaf2.id, "devices get(name=...)")
    eq(nb.dcim.devices.count(site_id=site.id), 2, "devices count(site_id)")
    eq(getattr(nb.dcim.racks.get(rack.id), "device_count", MISSING), 2, "rack device_count")
    eq(getattr(nb.dcim.sites.get(site.id), "device_count", MISSING), 2, "site device_count")

    # a name is unique per site (and tenant): NetBox answers 400
    try:
        nb.dcim.devices.create(name="py-leaf1", device_type=dtype.id, role=role.id, site=site.id).delete()
        check(False, "duplicate device name in a site: expected 400, the server created it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 400, "duplicate device name in a site: status")

    # -------------------------------------------------------------- interfaces
    step("interfaces (bulk create)")
    created = nb.dcim.interfaces.create([
        {"device": dev.id, "name": name, "type": itype, "mtu": mtu, "description": desc, **extra}
        for dev in (leaf1, leaf2)
        for name, itype, mtu, desc, extra in (
            ("xe-0/0/0", "10gbase-x-sfpp", 9216, "fabric uplink", {}),
            ("xe-0/0/1", "10gbase-x-sfpp", 9216, "server port", {}),
            ("lo0", "virtual", None, "loopback", {}),
            ("em0", "1000base-t", 1500, "management", {"mgmt_only": True}),
        )
    ])
    eq(len(created), 8, "bulk-created interfaces")
    ifaces = {(i.device.name, i.name): i for i in created}
    eq(sorted(ifaces), sorted((d, n) for d in ("py-leaf1", "py-leaf2") for n in ("xe-0/0/0", "xe-0/0/1", "lo0", "em0")),
       "bulk-created interfaces (device, name)")
    l1x0, l2x0 = ifaces[("py-leaf1", "xe-0/0/0")], ifaces[("py-leaf2", "xe-0/0/0")]
    l1lo, l2lo = ifaces[("py-leaf1", "lo0")], ifaces[("py-leaf2", "lo0")]
    l1x1 = ifaces[("py-leaf1", "xe-0/0/1")]

    listed = list(nb.dcim.interfaces.filter(device_id=leaf1.id))
    eq(sorted(i.name for i in listed), ["em0", "lo0", "xe-0/0/0", "xe-0/0/1"], "interfaces filter device_id")
    eq(sorted(i.name for i in nb.dcim.interfaces.filter(device="py-leaf2")), ["em0", "lo0", "xe-0/0/0", "xe-0/0/1"], "interfaces filter device=<name>")
    eq(sorted(i.name for i in nb.dcim.interfaces.filter(device_id=leaf1.id, mgmt_only=True)), ["em0"], "interfaces filter mgmt_only")
    eq(sorted(i.name for i in nb.dcim.interfaces.filter(device_id=leaf1.id, type="virtual")), ["lo0"], "interfaces filter type")
    x0 = nb.dcim.interfaces.get(l1x0.id)
    eq(x0.name, "xe-0/0/0", "interface name")
    eq(ref_id(x0.device), leaf1.id, "interface device")
    eq(x0.device.name, "py-leaf1", "interface nested device name")
    eq(choice(x0.type), "10gbase-x-sfpp", "interface type")
    eq(x0.type.label, "SFP+ (10GE)", "interface type label")
    eq(x0.mtu, 9216, "interface mtu")
    eq(x0.enabled, True, "interface enabled default")
    eq(x0.mgmt_only, False, "interface mgmt_only default")
    eq(x0.description, "fabric uplink", "interface description")
    eq(x0.cable, None, "interface cable before cabling")
    eq(getattr(x0, "_occupied", MISSING), False, "interface _occupied before cabling")
    eq(x0.link_peers, [], "interface link_peers before cabling")
    eq(getattr(x0, "connected_endpoints", MISSING), None, "interface connected_endpoints before cabling")
    eq(nb.dcim.interfaces.get(ifaces[("py-leaf1", "em0")].id).mgmt_only, True, "em0 mgmt_only")
    eq(getattr(nb.dcim.devices.get(leaf1.id), "interface_count", MISSING), 4, "device interface_count")

    # ------------------------------------------------------------------ cable
    step("cable")
    cable = nb.dcim.cables.create(
        a_terminations=[{"object_type": "dcim.interface", "object_id": l1x0.id}],
        b_terminations=[{"object_type": "dcim.interface", "object_id": l2x0.id}],
        type="dac-passive", status="connected", label="PY-C1", color="ff5722", length=3, length_unit="m",
    )
    cable = nb.dcim.cables.get(cable.id)
    eq(cable.label, "PY-C1", "cable label")
    eq(choice(cable.status), "connected", "cable status")
    eq(cable.type, "dac-passive", "cable type")
    eq(cable.color, "ff5722", "cable color")
    eq(float(cable.length), 3.0, "cable length")
    eq(choice(cable.length_unit), "m", "cable length_unit")
    raw_cable = raw_get("dcim/cables/%d/" % cable.id)
    eq([(t.get("object_type"), t.get("object_id")) for t in raw_cable.get("a_terminations", [])],
       [("dcim.interface", l1x0.id)], "cable a_terminations")
    eq([(t.get("object_type"), t.get("object_id")) for t in raw_cable.get("b_terminations", [])],
       [("dcim.interface", l2x0.id)], "cable b_terminations")
    eq([(t.get("object") or {}).get("name") for t in raw_cable.get("a_terminations", [])], ["xe-0/0/0"], "cable a_terminations[].object.name")
    eq([((t.get("object") or {}).get("device") or {}).get("name") for t in raw_cable.get("b_terminations", [])],
       ["py-leaf2"], "cable b_terminations[].object.device.name")
    # pynetbox turns GenericObject lists into Interfaces records
    eq([getattr(t, "id", None) for t in cable.a_terminations], [l1x0.id], "cable.a_terminations as pynetbox records")

    for mine, peer, end in ((l1x0, l2x0, "A"), (l2x0, l1x0, "B")):
        i = nb.dcim.interfaces.get(mine.id)
        what = "%s %s" % (i.device.name, i.name)
        eq(ref_id(i.cable), cable.id, "%s cable" % what)
        eq(getattr(i, "cable_end", MISSING), end, "%s cable_end" % what)
        eq(getattr(i, "_occupied", MISSING), True, "%s _occupied" % what)
        eq([p.get("id") for p in raw_get("dcim/interfaces/%d/" % i.id).get("link_peers", [])], [peer.id], "%s link_peers" % what)
        eq(getattr(i, "link_peers_type", MISSING), "dcim.interface", "%s link_peers_type" % what)
        eq([p.get("id") for p in raw_get("dcim/interfaces/%d/" % i.id).get("connected_endpoints") or []], [peer.id],
           "%s connected_endpoints" % what)
        eq(getattr(i, "connected_endpoints_type", MISSING), "dcim.interface", "%s connected_endpoints_type" % what)
        eq(getattr(i, "connected_endpoints_reachable", MISSING), True, "%s connected_endpoints_reachable" % what)
    eq([c.id for c in nb.dcim.cables.filter(device_id=leaf1.id)], [cable.id], "cables filter device_id")
    eq([c.id for c in nb.dcim.cables.filter(interface_id=l2x0.id)], [cable.id], "cables filter interface_id")
    eq([c.id for c in nb.dcim.cables.filter(site_id=site.id)], [cable.id], "cables filter site_id")
    eq([c.id for c in nb.dcim.cables.filter(site_id=site2.id)], [], "cables filter site_id=<empty site>")
    eq(sorted(i.name for i in nb.dcim.interfaces.filter(device_id=leaf1.id, cabled=True)), ["xe-0/0/0"], "interfaces filter cabled=True")
    eq(sorted(i.name for i in nb.dcim.interfaces.filter(device_id=leaf1.id, occupied=False)), ["em0", "lo0", "xe-0/0/1"],
       "interfaces filter occupied=False")
    brief = raw_get("dcim/interfaces/", device_id=leaf1.id, name="xe-0/0/0", brief=1)["results"]
    # NetBox 3.7's nested interface plus connection_status, which the spec's nested interface carries
    eq([sorted(b) for b in brief], [sorted(["id", "url", "display", "device", "name", "cable", "_occupied", "connection_status"])],
       "interface brief fields")
    # an interface holds at most one cable
    try:
        nb.dcim.cables.create(a_terminations=[{"object_type": "dcim.interface", "object_id": l1x0.id}],
                              b_terminations=[{"object_type": "dcim.interface", "object_id": l1x1.id}]).delete()
        check(False, "second cable on a cabled interface: expected 400, the server created it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 400, "second cable on a cabled interface: status")
    eq(nb.dcim.cables.count(device_id=leaf1.id), 1, "cables on py-leaf1 after refused second cable")

    # ------------------------------------------------------------------- IPAM
    step("prefixes")
    container = nb.ipam.prefixes.create(prefix="10.99.0.0/16", status="container", site=site.id, description="PY fabric")
    p2p = nb.ipam.prefixes.create(prefix="10.99.0.0/24", status="active", site=site.id, description="PY p2p links")
    loopbacks = nb.ipam.prefixes.create(prefix="10.99.1.0/24", status="active", site=site.id, description="PY loopbacks", is_pool=True)
    vmnet = nb.ipam.prefixes.create(prefix="10.99.2.0/24", status="reserved", description="PY VM network")
    eq(choice(nb.ipam.prefixes.get(container.id).status), "container", "container prefix status")
    eq(nb.ipam.prefixes.get(loopbacks.id).is_pool, True, "loopback prefix is_pool")
    eq(choice(getattr(nb.ipam.prefixes.get(p2p.id), "family", MISSING)), 4, "prefix family")
    eq(str(nb.ipam.prefixes.get(p2p.id)), "10.99.0.0/24", "prefix str()")
    eq(sorted(p.prefix for p in nb.ipam.prefixes.filter(within="10.99.0.0/16")),
       ["10.99.0.0/24", "10.99.1.0/24", "10.99.2.0/24"], "prefixes filter within")
    eq(sorted(p.prefix for p in nb.ipam.prefixes.filter(within_include="10.99.0.0/16")),
       ["10.99.0.0/16", "10.99.0.0/24", "10.99.1.0/24", "10.99.2.0/24"], "prefixes filter within_include")
    eq(sorted(p.prefix for p in nb.ipam.prefixes.filter(contains="10.99.1.7")), ["10.99.0.0/16", "10.99.1.0/24"], "prefixes filter contains")
    eq(sorted(p.prefix for p in nb.ipam.prefixes.filter(site_id=site.id, status="active")), ["10.99.0.0/24", "10.99.1.0/24"],
       "prefixes filter site_id + status")

    step("IP addresses on interfaces")
    ip_specs = [
        ("10.99.0.0/31", l1x0, "py-leaf1 p2p"), ("10.99.0.1/31", l2x0, "py-leaf2 p2p"),
        ("10.99.1.1/32", l1lo, "py-leaf1 loopback"), ("10.99.1.2/32", l2lo, "py-leaf2 loopback"),
    ]
    ips = {}
    for address, iface, desc in ip_specs:
        ip = nb.ipam.ip_addresses.create(address=address, status="active", description=desc, dns_name="%s.example.net" % desc.replace(" ", "-"),
                                         assigned_object_type="dcim.interface", assigned_object_id=iface.id)
        ips[address] = ip
        got = nb.ipam.ip_addresses.get(ip.id)
        eq(got.address, address, "ip address")
        eq(str(got), address, "ip str()")
        eq(choice(getattr(got, "family", MISSING)), 4, "%s family" % address)
        eq(got.assigned_object_type, "dcim.interface", "%s assigned_object_type" % address)
        eq(got.assigned_object_id, iface.id, "%s assigned_object_id" % address)
        eq(ref_id(got.assigned_object), iface.id, "%s assigned_object.id" % address)
        eq(getattr(got.assigned_object, "name", None), iface.name, "%s assigned_object.name" % address)
        eq(getattr(getattr(got.assigned_object, "device", None), "id", None), iface.device.id, "%s assigned_object.device.id" % address)
        eq(got.dns_name, "%s.example.net" % desc.replace(" ", "-"), "%s dns_name" % address)
    eq(sorted(i.address for i in nb.ipam.ip_addresses.filter(device_id=leaf1.id)), ["10.99.0.0/31", "10.99.1.1/32"], "ip_addresses filter device_id")
    eq(sorted(i.address for i in nb.ipam.ip_addresses.filter(device="py-leaf2")), ["10.99.0.1/31", "10.99.1.2/32"], "ip_addresses filter device=<name>")
    eq([i.address for i in nb.ipam.ip_addresses.filter(interface_id=l2lo.id)], ["10.99.1.2/32"], "ip_addresses filter interface_id")
    eq(sorted(i.address for i in nb.ipam.ip_addresses.filter(parent="10.99.1.0/24")), ["10.99.1.1/32", "10.99.1.2/32"], "ip_addresses filter parent")
    eq(sorted(i.address for i in nb.ipam.ip_addresses.filter(address="10.99.0.1/31")), ["10.99.0.1/31"], "ip_addresses filter address")
    eq(sorted(i.address for i in nb.ipam.ip_addresses.filter(parent="10.99.0.0/16", mask_length=32)), ["10.99.1.1/32", "10.99.1.2/32"],
       "ip_addresses filter mask_length")
    eq(nb.ipam.ip_addresses.count(assigned_to_interface=True, parent="10.99.0.0/16"), 4, "ip_addresses filter assigned_to_interface")
    eq(getattr(nb.dcim.interfaces.get(l1lo.id), "count_ipaddresses", "<missing>"), 1, "interface count_ipaddresses")

    step("primary IPs")
    for dev, address in ((leaf1, "10.99.1.1/32"), (leaf2, "10.99.1.2/32")):
        d = nb.dcim.devices.get(dev.id)
        d.primary_ip4 = ips[address].id
        eq(d.save(), True, "%s save() primary_ip4" % d.name)
        d = nb.dcim.devices.get(dev.id)
        eq(ref_id(d.primary_ip4), ips[address].id, "%s primary_ip4" % d.name)
        eq(getattr(d.primary_ip4, "address", None), address, "%s primary_ip4.address" % d.name)
        eq(getattr(getattr(d, "primary_ip", None), "address", None), address, "%s primary_ip.address" % d.name)
        eq(d.primary_ip6, None, "%s primary_ip6" % d.name)
    eq([d.name for d in nb.dcim.devices.filter(primary_ip4_id=ips["10.99.1.2/32"].id)], ["py-leaf2"], "devices filter primary_ip4_id")
    eq(sorted(d.name for d in nb.dcim.devices.filter(site_id=site.id, has_primary_ip=True)), ["py-leaf1", "py-leaf2"], "devices filter has_primary_ip")
    # NetBox refuses an address that is not on one of the device's own interfaces
    d = nb.dcim.devices.get(leaf1.id)
    d.primary_ip4 = ips["10.99.1.2/32"].id
    try:
        d.save()
        check(False, "primary_ip4 set to another device's address: expected 400, the server accepted it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 400, "primary_ip4 set to another device's address: status")
    eq(ref_id(nb.dcim.devices.get(leaf1.id).primary_ip4), ips["10.99.1.1/32"].id, "py-leaf1 primary_ip4 unchanged after refused save")

    # ------------------------------------------------------------------ VLANs
    step("VLAN group with 60 VLANs (paging)")
    vgroup = nb.ipam.vlan_groups.create(name="PY Fabric VLANs", slug="py-fabric-vlans", scope_type="dcim.site", scope_id=site.id,
                                        min_vid=100, max_vid=199, description="PY e2e")
    vgroup = nb.ipam.vlan_groups.get(vgroup.id)
    eq(getattr(vgroup, "scope_type", MISSING), "dcim.site", "vlan group scope_type")
    eq(getattr(vgroup, "scope_id", MISSING), site.id, "vlan group scope_id")
    eq(getattr(getattr(vgroup, "scope", MISSING), "name", None), "PY AMS1", "vlan group scope.name")
    eq((vgroup.min_vid, vgroup.max_vid), (100, 199), "vlan group min_vid/max_vid")
    vids = list(range(100, 160))
    made = nb.ipam.vlans.create([{"vid": v, "name": "py-vlan-%d" % v, "group": vgroup.id, "status": "active"} for v in vids])
    eq(len(made), 60, "bulk-created VLANs")
    eq(getattr(nb.ipam.vlan_groups.get(vgroup.id), "vlan_count", MISSING), 60, "vlan group vlan_count")
    # a VLAN id outside the group's range is refused
    try:
        nb.ipam.vlans.create(vid=300, name="py-vlan-300", group=vgroup.id).delete()
        check(False, "VLAN vid outside the group's min/max: expected 400, the server created it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 400, "VLAN vid outside the group's min/max: status")

    # limit=0 is clamped to MAX_PAGE_SIZE and the client follows the rest
    first = raw_get("ipam/vlans/", group_id=vgroup.id, limit=0)
    eq(first.get("count"), 60, "vlans limit=0 count")
    eq(len(first.get("results", [])), min(60, MAX_PAGE_SIZE), "vlans limit=0 page length (clamped to MAX_PAGE_SIZE)")
    if MAX_PAGE_SIZE < 60:
        check(first.get("next") is not None, "vlans limit=0 with 60 > MAX_PAGE_SIZE rows: expected a next link, got None")
    got = list(nb.ipam.vlans.filter(group_id=vgroup.id))
    eq(sorted(v.vid for v in got), vids, "vlans filter group_id, all pages (limit=0 + next)")
    eq(len({v.id for v in got}), 60, "vlans filter group_id: distinct rows")
    got = list(nb.ipam.vlans.filter(group_id=vgroup.id, limit=7))
    eq(sorted(v.vid for v in got), vids, "vlans filter group_id limit=7, following next links")
    rs = nb.ipam.vlans.filter(group_id=vgroup.id, limit=7)
    eq(len(rs), 60, "len(RecordSet) is the server count")
    got = list(nb.ipam.vlans.all(limit=25))
    check(set(vids) <= {v.vid for v in got if ref_id(v.group) == vgroup.id}, "vlans all(limit=25) contains the group's 60 VLANs")
    page = list(nb.ipam.vlans.filter(group_id=vgroup.id, limit=10, offset=20))
    eq([v.vid for v in page], vids[20:30], "vlans filter limit=10 offset=20 (one page, ordered by vid)")
    threaded = pynetbox.api(URL, token=TOKEN, threading=True)
    eq(sorted(v.vid for v in threaded.ipam.vlans.filter(group_id=vgroup.id)), vids, "vlans with threading=True (concurrent offsets)")
    eq(sorted(v.vid for v in nb.ipam.vlans.filter(group_id=vgroup.id, vid__gte=150)), vids[50:], "vlans filter vid__gte")
    eq([v.name for v in nb.ipam.vlans.filter(group="py-fabric-vlans", vid=123)], ["py-vlan-123"], "vlans filter group=<slug> + vid")
    lab = nb.ipam.vlan_groups.create(name="PY Lab VLANs", slug="py-lab-vlans", scope_type="dcim.region", scope_id=europe.id)
    labvlans = nb.ipam.vlans.create([{"vid": v, "name": "py-lab-%d" % v, "group": lab.id} for v in (100, 101, 102)])
    other = nb.ipam.vlans.create(vid=999, name="py-ams2-only", site=site2.id)
    eq(sorted(v.vid for v in nb.ipam.vlans.filter(group_id=lab.id)), [100, 101, 102], "vlans filter group_id=<second group>")
    eq(nb.ipam.vlans.count(group_id=vgroup.id), 60, "vlans count group_id leaves the second group out")
    eq(sorted(v.name for v in nb.ipam.vlans.filter(vid=100, name__isw="py-")), ["py-lab-100", "py-vlan-100"], "vlans filter vid (one per group)")
    eq([v.name for v in nb.ipam.vlans.filter(site_id=site2.id)], ["py-ams2-only"], "vlans filter site_id")
    avail = {v.name for v in nb.ipam.vlans.filter(available_on_device=leaf1.id)}
    want = {"py-vlan-%d" % v for v in vids} | {"py-lab-100", "py-lab-101", "py-lab-102"}
    check(want <= avail, "vlans filter available_on_device: missing site- and region-scoped VLANs %r" % sorted(want - avail)[:10])
    check("py-ams2-only" not in avail, "vlans filter available_on_device: a VLAN of another site (py-ams2-only) is listed")
    vlan = {v.vid: v for v in made}

    step("interface VLANs")
    i = nb.dcim.interfaces.get(l1x1.id)
    i.mode = "tagged"
    i.untagged_vlan = vlan[100].id
    i.tagged_vlans = [vlan[101].id, vlan[102].id]
    eq(i.save(), True, "xe-0/0/1 save() mode/VLANs")
    i = nb.dcim.interfaces.get(l1x1.id)
    eq(choice(i.mode), "tagged", "xe-0/0/1 mode")
    eq(ref_id(i.untagged_vlan), vlan[100].id, "xe-0/0/1 untagged_vlan")
    eq(getattr(i.untagged_vlan, "vid", None), 100, "xe-0/0/1 untagged_vlan.vid")
    eq(sorted(v.vid for v in i.tagged_vlans), [101, 102], "xe-0/0/1 tagged_vlans")
    eq(sorted(x.name for x in nb.dcim.interfaces.filter(vlan_id=vlan[101].id)), ["xe-0/0/1"], "interfaces filter vlan_id (tagged)")

    # --------------------------------------------------------------- circuits
    step("provider and circuit")
    provider = nb.circuits.providers.create(name="PY Transit Co", slug="py-transit-co", description="PY upstream")
    ctype = nb.circuits.circuit_types.create(name="PY Internet Transit", slug="py-internet-transit")
    circuit = nb.circuits.circuits.create(cid="PY-CID-0001", provider=provider.id, type=ctype.id, status="active",
                                          commit_rate=10000, install_date="2024-01-15", description="PY transit")
    term = nb.circuits.circuit_terminations.create(circuit=circuit.id, term_side="A", site=site.id, port_speed=10000, xconnect_id="XC-1")
    c = nb.circuits.circuits.get(circuit.id)
    eq(c.cid, "PY-CID-0001", "circuit cid")
    eq(str(c), "PY-CID-0001", "circuit str()")
    eq(ref_id(c.provider), provider.id, "circuit provider")
    eq(ref_id(c.type), ctype.id, "circuit type")
    eq(choice(c.status), "active", "circuit status")
    eq(c.commit_rate, 10000, "circuit commit_rate")
    eq(c.install_date, "2024-01-15", "circuit install_date")
    eq(ref_id(getattr(c, "termination_a", MISSING)), term.id, "circuit termination_a")
    eq(ref_id(getattr(getattr(c, "termination_a", None), "site", None)), site.id, "circuit termination_a.site")
    eq(getattr(getattr(c, "termination_a", None), "xconnect_id", None), "XC-1", "circuit termination_a.xconnect_id")
    eq(getattr(c, "termination_z", MISSING), None, "circuit termination_z")
    t = nb.circuits.circuit_terminations.get(term.id)
    eq(t.term_side, "A", "circuit termination term_side")
    eq(ref_id(t.site), site.id, "circuit termination site")
    eq(t.port_speed, 10000, "circuit termination port_speed")
    eq([x.cid for x in nb.circuits.circuits.filter(provider="py-transit-co")], ["PY-CID-0001"], "circuits filter provider=<slug>")
    eq([x.cid for x in nb.circuits.circuits.filter(site_id=site.id)], ["PY-CID-0001"], "circuits filter site_id")
    eq([x.cid for x in nb.circuits.circuits.filter(type_id=ctype.id)], ["PY-CID-0001"], "circuits filter type_id")
    eq(getattr(nb.circuits.providers.get(provider.id), "circuit_count", MISSING), 1, "provider circuit_count")

    step("cable from py-leaf2 to the circuit termination")
    l2x1 = ifaces[("py-leaf2", "xe-0/0/1")]
    cable2 = nb.dcim.cables.create(
        a_terminations=[{"object_type": "dcim.interface", "object_id": l2x1.id}],
        b_terminations=[{"object_type": "circuits.circuittermination", "object_id": term.id}],
        type="smf", label="PY-TRANSIT",
    )
    raw_cable = raw_get("dcim/cables/%d/" % cable2.id)
    eq([(t.get("object_type"), t.get("object_id")) for t in raw_cable.get("b_terminations", [])],
       [("circuits.circuittermination", term.id)], "cable to circuit: b_terminations")
    t = nb.circuits.circuit_terminations.get(term.id)
    eq(ref_id(t.cable), cable2.id, "circuit termination cable")
    eq(getattr(t, "_occupied", MISSING), True, "circuit termination _occupied")
    eq(getattr(t, "link_peers_type", MISSING), "dcim.interface", "circuit termination link_peers_type")
    eq([p.get("id") for p in raw_get("circuits/circuit-terminations/%d/" % term.id).get("link_peers", [])], [l2x1.id],
       "circuit termination link_peers")
    x = nb.dcim.interfaces.get(l2x1.id)
    eq(ref_id(x.cable), cable2.id, "py-leaf2 xe-0/0/1 cable")
    eq(getattr(x, "link_peers_type", MISSING), "circuits.circuittermination", "py-leaf2 xe-0/0/1 link_peers_type")
    # every cable filter now has a cable to leave out
    eq(sorted(c.id for c in nb.dcim.cables.filter(device_id=leaf1.id)), [cable.id], "cables filter device_id=<py-leaf1>")
    eq(sorted(c.id for c in nb.dcim.cables.filter(device_id=leaf2.id)), sorted([cable.id, cable2.id]), "cables filter device_id=<py-leaf2>")
    eq(sorted(c.id for c in nb.dcim.cables.filter(device="py-leaf1")), [cable.id], "cables filter device=<name>")
    eq(sorted(c.id for c in nb.dcim.cables.filter(interface_id=l2x0.id)), [cable.id], "cables filter interface_id")
    eq(sorted(c.id for c in nb.dcim.cables.filter(circuittermination_id=term.id)), [cable2.id], "cables filter circuittermination_id")
    eq(sorted(c.id for c in nb.dcim.cables.filter(label="PY-TRANSIT")), [cable2.id], "cables filter label")
    # py-leaf2 has a cable of another type to leave out; other smf cables the database holds are not this script's
    eq(sorted(c.id for c in nb.dcim.cables.filter(device_id=leaf2.id, type="smf")), [cable2.id], "cables filter type")
    # the lookup the Ansible collection makes to find an existing cable
    eq([c.id for c in nb.dcim.cables.filter(termination_a_type="dcim.interface", termination_a_id=l1x0.id,
                                             termination_b_type="dcim.interface", termination_b_id=l2x0.id)], [cable.id],
       "cables filter termination_a_type/_id + termination_b_type/_id")
    eq([c.id for c in nb.dcim.cables.filter(device_id=leaf2.id, termination_b_type="circuits.circuittermination")], [cable2.id],
       "cables filter termination_b_type")
    eq(sorted(x.name for x in nb.dcim.interfaces.filter(device_id=leaf2.id, cabled=True)), ["xe-0/0/0", "xe-0/0/1"],
       "interfaces filter cabled=True on py-leaf2")
    try:
        nb.circuits.circuits.create(cid="PY-CID-0001", provider=provider.id, type=ctype.id).delete()
        check(False, "duplicate cid for a provider: expected 400, the server created it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 400, "duplicate cid for a provider: status")

    # --------------------------------------------------------- virtualization
    step("cluster, VM, VM interface, VM IP")
    cltype = nb.virtualization.cluster_types.create(name="PY VMware vSphere", slug="py-vmware-vsphere")
    cluster = nb.virtualization.clusters.create(name="PY Cluster 1", type=cltype.id, site=site.id, status="active")
    vm = nb.virtualization.virtual_machines.create(name="py-vm1", cluster=cluster.id, site=site.id, role=role.id, platform=platform.id,
                                                   status="active", vcpus=2, memory=4096, disk=50)
    vmif = nb.virtualization.interfaces.create(virtual_machine=vm.id, name="eth0", mtu=1500, mac_address="52:54:00:12:34:56",
                                               description="PY vm nic")
    vmip = nb.ipam.ip_addresses.create(address="10.99.2.10/24", assigned_object_type="virtualization.vminterface",
                                       assigned_object_id=vmif.id, status="active")
    v = nb.virtualization.virtual_machines.get(vm.id)
    v.primary_ip4 = vmip.id
    eq(v.save(), True, "py-vm1 save() primary_ip4")
    v = nb.virtualization.virtual_machines.get(vm.id)
    eq(v.name, "py-vm1", "vm name")
    eq(ref_id(v.cluster), cluster.id, "vm cluster")
    eq(ref_id(v.site), site.id, "vm site")
    eq(ref_id(v.role), role.id, "vm role")
    eq(ref_id(v.platform), platform.id, "vm platform")
    eq(choice(v.status), "active", "vm status")
    eq(float(v.vcpus), 2.0, "vm vcpus")
    eq(v.memory, 4096, "vm memory")
    eq(v.disk, 50, "vm disk")
    eq(ref_id(v.primary_ip4), vmip.id, "vm primary_ip4")
    eq(getattr(getattr(v, "primary_ip", None), "address", None), "10.99.2.10/24", "vm primary_ip.address")
    eq(getattr(v, "interface_count", MISSING), 1, "vm interface_count")
    vi = nb.virtualization.interfaces.get(vmif.id)
    eq(ref_id(vi.virtual_machine), vm.id, "vm interface virtual_machine")
    eq(vi.mtu, 1500, "vm interface mtu")
    eq(vi.mac_address, "52:54:00:12:34:56", "vm interface mac_address")
    eq(vi.enabled, True, "vm interface enabled")
    ipr = nb.ipam.ip_addresses.get(vmip.id)
    eq(ipr.assigned_object_type, "virtualization.vminterface", "vm ip assigned_object_type")
    eq(ref_id(ipr.assigned_object), vmif.id, "vm ip assigned_object.id")
    eq(getattr(getattr(ipr.assigned_object, "virtual_machine", None), "name", None), "py-vm1", "vm ip assigned_object.virtual_machine.name")
    eq([x.address for x in nb.ipam.ip_addresses.filter(virtual_machine_id=vm.id)], ["10.99.2.10/24"], "ip_addresses filter virtual_machine_id")
    eq([x.address for x in nb.ipam.ip_addresses.filter(vminterface_id=vmif.id)], ["10.99.2.10/24"], "ip_addresses filter vminterface_id")
    eq([x.address for x in nb.ipam.ip_addresses.filter(virtual_machine="py-vm1")], ["10.99.2.10/24"], "ip_addresses filter virtual_machine=<name>")
    eq([x.name for x in nb.virtualization.virtual_machines.filter(cluster_id=cluster.id)], ["py-vm1"], "virtual_machines filter cluster_id")
    eq([x.name for x in nb.virtualization.virtual_machines.filter(site="py-ams1")], ["py-vm1"], "virtual_machines filter site=<slug>")
    eq([x.name for x in nb.virtualization.interfaces.filter(virtual_machine_id=vm.id)], ["eth0"], "vm interfaces filter virtual_machine_id")
    eq(getattr(nb.virtualization.clusters.get(cluster.id), "virtualmachine_count", MISSING), 1, "cluster virtualmachine_count")
    eq(nb.ipam.ip_addresses.count(device_id=leaf1.id), 2, "ip_addresses filter device_id excludes VM addresses")

    # ------------------------------------------------------ changes with save()
    step("save()")
    d = nb.dcim.devices.get(leaf2.id)
    d.status = "active"
    d.serial = "PYSN0002-B"
    d.asset_tag = "PY-ASSET-2"
    d.description = "second leaf"
    d.local_context_data = {"role": "leaf", "syslog": ["192.0.2.9"]}
    eq(d.save(), True, "py-leaf2 save()")
    d = nb.dcim.devices.get(leaf2.id)
    eq(choice(d.status), "active", "py-leaf2 status after save()")
    eq(d.serial, "PYSN0002-B", "py-leaf2 serial after save()")
    eq(d.asset_tag, "PY-ASSET-2", "py-leaf2 asset_tag after save()")
    eq(d.description, "second leaf", "py-leaf2 description after save()")
    eq(d.local_context_data, {"role": "leaf", "syslog": ["192.0.2.9"]}, "py-leaf2 local_context_data after save()")
    eq(ref_id(d.primary_ip4), ips["10.99.1.2/32"].id, "py-leaf2 primary_ip4 kept by partial save()")
    eq(d.save(), False, "save() with nothing changed sends nothing")
    eq(d.update({"comments": "racked by e2e"}), True, "Record.update()")
    eq(nb.dcim.devices.get(leaf2.id).comments, "racked by e2e", "comments after Record.update()")
    s = nb.dcim.sites.get(site.id)
    s.description = "PY data centre, changed"
    s.status = "staging"
    eq(s.save(), True, "site save()")
    s = nb.dcim.sites.get(site.id)
    eq(s.description, "PY data centre, changed", "site description after save()")
    eq(choice(s.status), "staging", "site status after save()")
    c = nb.circuits.circuits.get(circuit.id)
    c.commit_rate = 20000
    c.status = "provisioning"
    eq(c.save(), True, "circuit save()")
    c = nb.circuits.circuits.get(circuit.id)
    eq((c.commit_rate, choice(c.status)), (20000, "provisioning"), "circuit commit_rate/status after save()")
    ipx = nb.ipam.ip_addresses.get(ips["10.99.0.0/31"].id)
    ipx.role = "anycast"
    ipx.description = "changed"
    eq(ipx.save(), True, "ip save()")
    ipx = nb.ipam.ip_addresses.get(ips["10.99.0.0/31"].id)
    eq(choice(ipx.role), "anycast", "ip role after save()")
    eq(ipx.assigned_object_id, l1x0.id, "ip assignment kept by partial save()")

    # ------------------------------------------------------------ bulk update
    step("bulk update")
    res = nb.dcim.interfaces.update([
        {"id": l1x0.id, "description": "bulk: to py-leaf2", "mtu": 9000},
        {"id": l2x0.id, "description": "bulk: to py-leaf1", "mtu": 9000},
    ])
    eq(sorted((r.id, r.description, r.mtu) for r in res),
       sorted([(l1x0.id, "bulk: to py-leaf2", 9000), (l2x0.id, "bulk: to py-leaf1", 9000)]), "interfaces.update([dict]) response")
    for iid, desc in ((l1x0.id, "bulk: to py-leaf2"), (l2x0.id, "bulk: to py-leaf1")):
        x = nb.dcim.interfaces.get(iid)
        eq((x.description, x.mtu, x.name), (desc, 9000, "xe-0/0/0"), "interface %d after bulk update" % iid)
        eq(ref_id(x.cable), cable.id, "interface %d keeps its cable after bulk update" % iid)
    # with records: pynetbox sends only what changed
    recs = list(nb.dcim.interfaces.filter(device_id=leaf2.id, name=["lo0", "em0"]))
    eq(sorted(r.name for r in recs), ["em0", "lo0"], "interfaces filter name=[a, b] (repeated query parameter)")
    for r in recs:
        r.description = "bulk record %s" % r.name
    res = nb.dcim.interfaces.update(recs)
    eq(sorted(r.description for r in res), ["bulk record em0", "bulk record lo0"], "interfaces.update([Record]) response")
    # RecordSet.update(): every interface of py-leaf2 disabled in one PATCH
    res = nb.dcim.interfaces.filter(device_id=leaf2.id).update(enabled=False)
    eq(sorted((x.name, x.enabled) for x in res or []),
       [("em0", False), ("lo0", False), ("xe-0/0/0", False), ("xe-0/0/1", False)], "RecordSet.update(enabled=False) response")
    eq(sorted((x.name, x.enabled) for x in nb.dcim.interfaces.filter(device_id=leaf2.id)),
       [("em0", False), ("lo0", False), ("xe-0/0/0", False), ("xe-0/0/1", False)], "interfaces after RecordSet.update(enabled=False)")
    eq(sorted(x.name for x in nb.dcim.interfaces.filter(device_id=leaf1.id, enabled=True)), ["em0", "lo0", "xe-0/0/0", "xe-0/0/1"],
       "py-leaf1 interfaces untouched by RecordSet.update()")
    res = nb.ipam.vlans.update([{"id": vlan[v].id, "status": "reserved"} for v in (150, 151, 152)])
    eq(sorted((x.vid, choice(x.status)) for x in res), [(150, "reserved"), (151, "reserved"), (152, "reserved")], "vlans.update() response")
    eq(sorted(x.vid for x in nb.ipam.vlans.filter(group_id=vgroup.id, status="reserved")), [150, 151, 152], "vlans filter status after bulk update")
    # a bulk update is one transaction: one bad row changes nothing
    try:
        nb.dcim.interfaces.update([{"id": l1x1.id, "description": "must not stick"}, {"id": l1lo.id, "mtu": 0}])
        check(False, "bulk update with an invalid row (mtu=0): expected 400, the server accepted it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 400, "bulk update with an invalid row: status")
    eq(nb.dcim.interfaces.get(l1x1.id).description, "server port", "bulk update with an invalid row leaves the valid row unchanged")

    # ------------------------------------------------------------ bulk delete
    step("bulk delete")
    spare = nb.dcim.interfaces.create([{"device": leaf1.id, "name": "ge-0/0/%d" % n, "type": "1000base-t"} for n in range(10, 16)])
    eq(len(spare), 6, "spare interfaces created")
    eq(nb.dcim.interfaces.count(device_id=leaf1.id), 10, "py-leaf1 interfaces with spares")
    eq(nb.dcim.interfaces.delete([s.id for s in spare[:3]]), True, "interfaces.delete([ids])")
    eq(nb.dcim.interfaces.delete(spare[3:4]), True, "interfaces.delete([Record])")
    eq(sorted(x.name for x in nb.dcim.interfaces.filter(device_id=leaf1.id, name__isw="ge-")), ["ge-0/0/14", "ge-0/0/15"],
       "spare interfaces left after two bulk deletes")
    eq(nb.dcim.interfaces.filter(device_id=leaf1.id, name__isw="ge-").delete(), True, "RecordSet.delete()")
    eq(nb.dcim.interfaces.count(device_id=leaf1.id), 4, "py-leaf1 interfaces after deleting the spares")
    for s_ in spare:
        eq(nb.dcim.interfaces.get(s_.id), None, "deleted interface %s is gone" % s_.name)
    eq(nb.ipam.vlans.delete([vlan[v].id for v in range(140, 160)]), True, "vlans.delete([ids])")
    eq(sorted(v.vid for v in nb.ipam.vlans.filter(group_id=vgroup.id)), vids[:40], "VLANs left after bulk delete")

    # ---------------------------------------------------- protected deletes
    step("protected delete")
    try:
        nb.dcim.sites.get(site.id).delete()
        check(False, "delete a site with racks and devices: expected 409, the server deleted it")
    except pynetbox.RequestError as e:
        eq(e.req.status_code, 409, "delete a site with racks and devices: status")
        detail = (e.req.json() or {}).get("detail", "") if e.req.headers.get("content-type", "").startswith("application/json") else ""
        check(detail.startswith("Unable to delete object."), "409 detail names the dependent objects: %r" % detail)
    eq(nb.dcim.sites.get(site.id).name, "PY AMS1", "site still there after refused delete")
    eq(nb.dcim.devices.count(site_id=site.id), 2, "devices still there after refused site delete")

    if KEEP:
        return

    # -------------------------------------------------------------- teardown
    step("teardown")
    eq(nb.dcim.cables.delete([cable2.id]), True, "cables.delete([id]) (circuit cable)")
    t = nb.circuits.circuit_terminations.get(term.id)
    eq((t.cable, getattr(t, "_occupied", MISSING)), (None, False), "circuit termination uncabled after cable delete")
    eq(nb.dcim.cables.get(cable.id).delete(), True, "cable delete")
    x = nb.dcim.interfaces.get(l1x0.id)
    eq((x.cable, getattr(x, "_occupied", MISSING), x.link_peers), (None, False, []), "interface uncabled after cable delete")
    eq(nb.dcim.devices.delete([leaf1.id, leaf2.id]), True, "devices.delete()")
    for x in created:
        eq(nb.dcim.interfaces.get(x.id), None, "deleting a device deletes its interface %s %s" % (x.device.name, x.name))
    for address, ip in ips.items():
        # an IP address follows its interface (GenericRelation: cascade), as in NetBox
        eq(nb.ipam.ip_addresses.get(ip.id), None, "deleting a device deletes the addresses of its interfaces (%s)" % address)
    nb.virtualization.virtual_machines.get(vm.id).delete()
    eq(nb.virtualization.interfaces.get(vmif.id), None, "deleting a VM deletes its interfaces")
    eq(nb.ipam.ip_addresses.get(vmip.id), None, "deleting a VM deletes the addresses of its interfaces")
    nb.virtualization.clusters.get(cluster.id).delete()
    nb.virtualization.cluster_types.get(cltype.id).delete()
    nb.circuits.circuits.get(circuit.id).delete()
    eq(nb.circuits.circuit_terminations.get(term.id), None, "deleting a circuit deletes its terminations")
    nb.circuits.circuit_types.get(ctype.id).delete()
    nb.circuits.providers.get(provider.id).delete()
    nb.ipam.vlans.filter(group_id=vgroup.id).delete()
    nb.ipam.vlans.filter(group_id=lab.id).delete()
    nb.ipam.vlan_groups.delete([vgroup.id, lab.id])
    nb.ipam.vlans.get(other.id).delete()
    eq([x.address for x in nb.ipam.ip_addresses.filter(parent="10.99.0.0/16")], [], "no PY addresses left")
    # what pynetbox sends for RecordSet.delete() on an empty result: NetBox answers 204
    try:
        eq(nb.ipam.ip_addresses.filter(parent="10.99.0.0/16").delete(), True, "bulk delete of an empty list")
    except pynetbox.RequestError as e:
        check(False, "bulk delete of an empty list: NetBox answers 204, got:\n  %s" % describe_request_error(e))
    nb.ipam.prefixes.filter(within_include="10.99.0.0/16").delete()
    nb.dcim.racks.get(rack.id).delete()
    nb.dcim.sites.delete([site.id, site2.id])
    nb.dcim.platforms.get(platform.id).delete()
    nb.dcim.device_roles.get(role.id).delete()
    nb.dcim.device_types.get(dtype.id).delete()
    nb.dcim.manufacturers.get(mfr.id).delete()
    nb.dcim.regions.get(europe.id).delete()
    eq(nb.dcim.regions.get(metro.id), None, "deleting a region deletes its child regions")
    eq(nb.dcim.sites.count(slug="py-ams1"), 0, "site gone after teardown")


if __name__ == "__main__":
    try:
        main()
    except pynetbox.RequestError as e:
        failures.append("request refused")
        print("FAIL: the server refused a request the script needs:\n  %s" % describe_request_error(e), flush=True)
        traceback.print_exc()
    except Exception:
        failures.append("exception")
        print("FAIL: unexpected exception", flush=True)
        traceback.print_exc()
    print("%d checks, %d failed" % (checks, len(failures)), flush=True)
    sys.exit(1 if failures else 0)
