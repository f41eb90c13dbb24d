#!/usr/bin/python3
"""End-to-end check of DCIM components with Debian's python3-pynetbox (7.0):
a device type with component templates (interfaces, a console port, power
ports, a patch panel's rear and front ports), devices created from it (one and
in bulk) whose components the server made, a module installed in a bay with
{module} renamed, and a cable from a switch port to a patch panel's front port,
traced with trace().

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/dcim.py

Every mismatch is printed as `FAIL: ...` and the script exits 1 if anything failed. Its names carry a
random tag, so it runs on a database holding what an earlier run left; E2E_KEEP=1 leaves what it made in place.
"""
import os
import sys
import uuid

import pynetbox

URL = os.environ.get("NETBOX_URL", "http://localhost:8000")
TOKEN = os.environ.get("NETBOX_TOKEN", "")

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg)


nb = pynetbox.api(URL, token=TOKEN)
tag = "e2e-dcim-" + uuid.uuid4().hex[:6]

site = nb.dcim.sites.create(name=tag, slug=tag)
role = nb.dcim.device_roles.create(name=tag, slug=tag)
mf = nb.dcim.manufacturers.create(name=tag, slug=tag)

# A 4-port switch with a console port, two power supplies and one module bay.
sw_type = nb.dcim.device_types.create(manufacturer=mf.id, model=tag + "-sw", slug=tag + "-sw")
nb.dcim.interface_templates.create([{"device_type": sw_type.id, "name": "eth%d" % i, "type": "1000base-t"} for i in range(4)])
nb.dcim.console_port_templates.create(device_type=sw_type.id, name="con0", type="rj-45")
nb.dcim.power_port_templates.create([{"device_type": sw_type.id, "name": "PSU%d" % i, "type": "iec-60320-c14"} for i in (1, 2)])
nb.dcim.module_bay_templates.create(device_type=sw_type.id, name="Slot 1", position="1")

# A 2-port patch panel: one rear port with two positions, two front ports mapped to them.
pp_type = nb.dcim.device_types.create(manufacturer=mf.id, model=tag + "-pp", slug=tag + "-pp")
rear_t = nb.dcim.rear_port_templates.create(device_type=pp_type.id, name="R1", type="lc", positions=2)
nb.dcim.front_port_templates.create([
    {"device_type": pp_type.id, "name": "F%d" % p, "type": "lc", "rear_port": rear_t.id, "rear_port_position": p} for p in (1, 2)
])

check(nb.dcim.device_types.get(sw_type.id).interface_template_count == 4, "the switch type counts 4 interface templates")

sw = nb.dcim.devices.create(name=tag + "-sw1", device_type=sw_type.id, role=role.id, site=site.id)
more = nb.dcim.devices.create([{"name": "%s-sw%d" % (tag, i), "device_type": sw_type.id, "role": role.id, "site": site.id} for i in (2, 3)])
panel = nb.dcim.devices.create(name=tag + "-pp1", device_type=pp_type.id, role=role.id, site=site.id)

names = sorted(i.name for i in nb.dcim.interfaces.filter(device_id=sw.id))
check(names == ["eth0", "eth1", "eth2", "eth3"], "the switch's interfaces come from its type: %r" % names)
for d in more:
    check(len(list(nb.dcim.interfaces.filter(device_id=d.id))) == 4, "a bulk-created switch has its 4 interfaces")
cons = list(nb.dcim.console_ports.filter(device_id=sw.id))
check([(c.name, c.type.value) for c in cons] == [("con0", "rj-45")], "the console port is copied with its type")
check(sorted(p.name for p in nb.dcim.power_ports.filter(device_id=sw.id)) == ["PSU1", "PSU2"], "both power ports are copied")
got = nb.dcim.devices.get(sw.id)
check((got.interface_count, got.console_port_count, got.power_port_count, got.module_bay_count) == (4, 1, 2, 1), "the device counts its components")

rears = list(nb.dcim.rear_ports.filter(device_id=panel.id))
fronts = sorted(nb.dcim.front_ports.filter(device_id=panel.id), key=lambda f: f.name)
check([(r.name, r.positions) for r in rears] == [("R1", 2)], "the panel's rear port has 2 positions")
check([(f.name, f.rear_port.id, f.rear_port_position) for f in fronts] == [("F1", rears[0].id, 1), ("F2", rears[0].id, 2)],
      "front ports are mapped to the rear port's positions")

# A module installed in Slot 1 brings its interfaces, {module} renamed to the bay's position.
mt = nb.dcim.module_types.create(manufacturer=mf.id, model=tag + "-lc")
nb.dcim.interface_templates.create(module_type=mt.id, name="ge-{module}/0/0", type="10gbase-x-sfpp")
bay = list(nb.dcim.module_bays.filter(device_id=sw.id))[0]
module = nb.dcim.modules.create(device=sw.id, module_bay=bay.id, module_type=mt.id)
check([i.name for i in nb.dcim.interfaces.filter(module_id=module.id)] == ["ge-1/0/0"], "the module's interface is named after its bay")

# eth0 of the switch to the panel's front port F1.
eth0 = nb.dcim.interfaces.get(device_id=sw.id, name="eth0")
cable = nb.dcim.cables.create(
    a_terminations=[{"object_type": "dcim.interface", "object_id": eth0.id}],
    b_terminations=[{"object_type": "dcim.frontport", "object_id": fronts[0].id}],
)
f1 = nb.dcim.front_ports.get(fronts[0].id)
check(f1.cable is not None and f1.cable.id == cable.id, "the front port shows its cable")
check(f1.link_peers_type == "dcim.interface" and [p["id"] for p in f1.link_peers] == [eth0.id], "the front port's link peer is eth0")
check(nb.dcim.interfaces.get(eth0.id)._occupied is True, "eth0 is occupied")

# pynetbox's trace(): eth0 -> cable -> F1, then R1 (2 positions) with no cable yet: an incomplete path.
hops = nb.dcim.interfaces.get(eth0.id).trace()
check(len(hops) == 6, "eth0's trace has two segments (%d hops)" % len(hops))
if len(hops) == 6:
    check([h.id for h in hops[0]] == [eth0.id] and hops[1].id == cable.id and [h.id for h in hops[2]] == [f1.id],
          "the first segment is eth0, its cable, F1")
    check(type(hops[2][0]).__name__ == "FrontPorts" and type(hops[1]).__name__ == "Cables", "pynetbox builds its front port and cable records")
    check([h.id for h in hops[3]] == [rears[0].id] and not hops[4] and hops[5] == [], "the path stops at the rear port R1, uncabled")
check(nb.dcim.interfaces.get(eth0.id).connected_endpoints is None, "eth0 has no connected endpoint: its path is incomplete")

# Tear down: cables, modules, devices (their components go with them), types.
if os.environ.get("E2E_KEEP") != "1":
    cable.delete()
    module.delete()
    for d in [sw, panel] + list(more):
        d.delete()
    check(nb.dcim.interfaces.get(eth0.id) is None, "deleting a device deletes its components")
    for o in (mt, sw_type, pp_type, mf, role, site):
        o.delete()

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("dcim.py: all checks passed")
