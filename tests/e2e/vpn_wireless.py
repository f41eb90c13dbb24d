#!/usr/bin/python3
"""End-to-end check of NetBox 3.7's vpn app with Debian's python3-pynetbox (7.0), which has no `vpn`
attribute yet: the app is reached as pynetbox.core.app.App(nb, "vpn"), as a newer pynetbox names it. IKE and
IPSec proposals and policies, an IPSec profile, a tunnel group, a tunnel and its terminations on a device
interface and a VM interface with an outside IP, an L2VPN and its terminations: each created, updated
(save()), and looked up with get() and filter() by the filters vpn/filtersets.py declares. (The Ansible
collection's l2vpn modules still write to /api/ipam/, which NetBox 3.7 moved; tests/e2e/vpn_wireless.yml.)

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/vpn_wireless.py

Every mismatch is printed as `FAIL: ...` and the script exits 1 if anything failed. It removes what it
made at the end (E2E_KEEP=1 leaves it in place), and what an interrupted or kept earlier run left behind
at the start, so it can run again.
"""
import os
import sys

import pynetbox
from pynetbox.core.app import App

URL = os.environ.get("NETBOX_URL", "http://localhost:8000")
TOKEN = os.environ.get("NETBOX_TOKEN", "")
TAG = "e2e-vpn"

failures = []
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
        print(f"FAIL: {msg}")


nb = pynetbox.api(URL, token=TOKEN)
vpn = App(nb, "vpn")


def clean():
    """Removes what this script makes (by its description or its names), children before parents."""
    for ep in (vpn.tunnel_terminations, vpn.l2vpn_terminations):
        for obj in ep.all():
            if obj.display.startswith("E2E") or obj.display.startswith("e2e"):
                obj.delete()
    for ep in (vpn.tunnels, vpn.l2vpns, vpn.ipsec_profiles, vpn.ike_policies, vpn.ipsec_policies, vpn.ike_proposals, vpn.ipsec_proposals, vpn.tunnel_groups):
        for obj in ep.filter(description=TAG):
            obj.delete()
    for ep in (nb.ipam.ip_addresses, nb.ipam.vlans, nb.ipam.route_targets):
        for obj in ep.filter(description=TAG):
            obj.delete()
    for vm in nb.virtualization.virtual_machines.filter(name="e2e-vpn-vm"):
        vm.delete()
    for dev in nb.dcim.devices.filter(name="e2e-vpn-router"):
        dev.delete()
    for ep, slug in ((nb.dcim.device_types, "e2e-vpn-type"), (nb.dcim.manufacturers, "e2e-vpn-maker"), (nb.dcim.device_roles, "e2e-vpn-role"), (nb.dcim.sites, "e2e-vpn-site")):
        for obj in ep.filter(slug=slug):
            obj.delete()


clean()

# ------------------------------------------------------------ what the terminations need
site = nb.dcim.sites.create(name="E2E VPN site", slug="e2e-vpn-site")
maker = nb.dcim.manufacturers.create(name="E2E VPN maker", slug="e2e-vpn-maker")
dtype = nb.dcim.device_types.create(manufacturer=maker.id, model="E2E router", slug="e2e-vpn-type")
role = nb.dcim.device_roles.create(name="E2E VPN role", slug="e2e-vpn-role")
router = nb.dcim.devices.create(name="e2e-vpn-router", device_type=dtype.id, role=role.id, site=site.id)
tun0 = nb.dcim.interfaces.create(device=router.id, name="tun0", type="virtual")
eth0 = nb.dcim.interfaces.create(device=router.id, name="eth0", type="1000base-t")
vm = nb.virtualization.virtual_machines.create(name="e2e-vpn-vm", site=site.id)
wg0 = nb.virtualization.interfaces.create(virtual_machine=vm.id, name="wg0")
outside = nb.ipam.ip_addresses.create(address="203.0.113.10/32", description=TAG)
vlan = nb.ipam.vlans.create(name="e2e-vpn-vlan", vid=3095, description=TAG)
rt = nb.ipam.route_targets.create(name="65095:95", description=TAG)

# ------------------------------------------------------------ IKE
ike_prop = vpn.ike_proposals.create(name="E2E IKE AES", authentication_method="preshared-keys", encryption_algorithm="aes-256-cbc",
                                    authentication_algorithm="hmac-sha256", group=14, sa_lifetime=28800, description=TAG)
check(ike_prop.group.value == 14 and ike_prop.group.label == "Group 14", f"IKE proposal group: {ike_prop.group}")
ike_prop.sa_lifetime = 3600
ike_prop.save()
check(vpn.ike_proposals.get(ike_prop.id).sa_lifetime == 3600, "IKE proposal updated with save()")
ike = vpn.ike_policies.create(name="E2E IKEv1", version=1, mode="main", proposals=[ike_prop.id], preshared_key="e2e-psk", description=TAG)
check([p.name for p in ike.proposals] == ["E2E IKE AES"] and ike.mode.value == "main", f"IKE policy: {ike.proposals} {ike.mode}")
try:
    vpn.ike_policies.create(name="E2E IKEv2 with mode", version=2, mode="main", description=TAG)
    check(False, "an IKEv2 policy with a mode must be refused")
except pynetbox.RequestError as e:
    check(e.error and "Mode cannot be used" in e.error, f"IKEv2 with a mode: {e.error}")
check([p.name for p in vpn.ike_proposals.filter(ike_policy_id=ike.id)] == ["E2E IKE AES"], "IKE proposals by policy")
check([p.name for p in vpn.ike_policies.filter(proposal="E2E IKE AES")] == ["E2E IKEv1"], "IKE policies by proposal name")

# ------------------------------------------------------------ IPSec
esp = vpn.ipsec_proposals.create(name="E2E ESP", encryption_algorithm="aes-128-gcm", sa_lifetime_seconds=3600, description=TAG)
ipsec = vpn.ipsec_policies.create(name="E2E IPSec", proposals=[esp.id], pfs_group=19, description=TAG)
check(ipsec.pfs_group.value == 19 and [p.id for p in ipsec.proposals] == [esp.id], f"IPSec policy: {ipsec.pfs_group}")
profile = vpn.ipsec_profiles.create(name="E2E profile", mode="esp", ike_policy=ike.id, ipsec_policy=ipsec.id, description=TAG)
check(profile.ike_policy.name == "E2E IKEv1" and profile.ipsec_policy.name == "E2E IPSec", "IPSec profile policies")
check(vpn.ipsec_profiles.get(ike_policy="E2E IKEv1").id == profile.id, "IPSec profile by IKE policy name")

# ------------------------------------------------------------ tunnels
group = vpn.tunnel_groups.create(name="E2E mesh", slug="e2e-mesh", description=TAG)
tunnel = vpn.tunnels.create(name="E2E tunnel", encapsulation="ipsec-tunnel", group=group.id, ipsec_profile=profile.id, tunnel_id=95, description=TAG)
check(tunnel.status.value == "active" and tunnel.group.slug == "e2e-mesh", f"tunnel: {tunnel.status} {tunnel.group}")
tunnel.status = "planned"
tunnel.save()
check(vpn.tunnels.get(name="E2E tunnel").status.value == "planned", "tunnel updated with save()")
check(vpn.tunnel_groups.get(group.id).tunnel_count == 1, "tunnel group counts its tunnel")
hub = vpn.tunnel_terminations.create(tunnel=tunnel.id, role="hub", termination_type="dcim.interface", termination_id=tun0.id, outside_ip=outside.id)
spoke = vpn.tunnel_terminations.create(tunnel=tunnel.id, role="spoke", termination_type="virtualization.vminterface", termination_id=wg0.id)
check(str(hub) == f"E2E tunnel: Termination {hub.id}", f"termination display: {hub}")
check(hub.termination.name == "tun0" and hub.outside_ip.address == "203.0.113.10/32", f"termination object and outside IP: {hub.termination} {hub.outside_ip}")
check([t.id for t in vpn.tunnel_terminations.filter(tunnel="E2E tunnel")] == [hub.id, spoke.id], "terminations by tunnel name")
check([t.id for t in vpn.tunnel_terminations.filter(vminterface_id=wg0.id)] == [spoke.id], "terminations by VM interface")
check([t.id for t in vpn.tunnel_terminations.filter(interface="tun0", role="hub")] == [hub.id], "terminations by interface name and role")
try:
    vpn.tunnel_terminations.create(tunnel=tunnel.id, termination_type="dcim.interface", termination_id=tun0.id)
    check(False, "a second termination on the same interface must be refused")
except pynetbox.RequestError as e:
    check("only one tunnel" in str(e.error), f"second termination: {e.error}")

# ------------------------------------------------------------ L2VPN
l2vpn = vpn.l2vpns.create(name="E2E VPLS", slug="e2e-vpls", type="vpls", identifier=3095, import_targets=[rt.id], description=TAG)
vpn.l2vpn_terminations.create(l2vpn=l2vpn.id, assigned_object_type="dcim.interface", assigned_object_id=eth0.id)
vpn.l2vpn_terminations.create(l2vpn=l2vpn.id, assigned_object_type="ipam.vlan", assigned_object_id=vlan.id)
check(sorted(t.assigned_object_type for t in vpn.l2vpn_terminations.filter(l2vpn_id=l2vpn.id)) == ["dcim.interface", "ipam.vlan"], "L2VPN terminations")
check(vpn.l2vpns.get(import_target="65095:95").id == l2vpn.id, "L2VPN by import target")

if os.environ.get("E2E_KEEP") != "1":
    for t in list(vpn.l2vpn_terminations.filter(l2vpn_id=l2vpn.id)) + list(vpn.tunnel_terminations.filter(tunnel_id=tunnel.id)):
        t.delete()
    clean()
    check(not list(vpn.tunnels.filter(description=TAG)), "clean-up removed the tunnels")

print(f"vpn_wireless.py: {checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
