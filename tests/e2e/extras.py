#!/usr/bin/python3
"""End-to-end check of NetBox 3.7's extras with Debian's python3-pynetbox (7.0):
what pynetbox users do with custom field choice sets and custom fields, saved
filters, export templates, config templates (render and render-config), content
types, bookmarks, image attachments (uploaded as multipart forms, read and
renamed with pynetbox, served back at their URL), the dashboard and user
preferences.

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/extras.py

Every mismatch is printed as `FAIL: ...` and the script exits 1 if anything
failed; it removes what it made at the end (E2E_KEEP=1 leaves it in place), and
what an earlier run with E2E_KEEP=1 left at the start, so it can run again (on a
kept database, or one imported from a server it ran on).
"""
import os
import struct
import sys
import zlib

import pynetbox
import requests

URL = os.environ.get("NETBOX_URL", "http://localhost:8000")
TOKEN = os.environ.get("NETBOX_TOKEN", "")

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
made = []
KEEP = os.environ.get("E2E_KEEP") == "1"


def clean():
    """Removes what an earlier run with E2E_KEEP=1 left, by this script's names, children before parents."""
    sites = [s for slug in ("e2e-extras-a", "e2e-extras-b") for s in nb.dcim.sites.filter(slug=slug)]
    for site in sites:
        for bookmark in nb.extras.bookmarks.filter(object_type="dcim.site", object_id=site.id):
            bookmark.delete()
        for att in nb.extras.image_attachments.filter(content_type="dcim.site", object_id=site.id):
            att.delete()
    for ep, filters in ((nb.dcim.devices, {"name": "e2e-extras-1"}), (nb.dcim.sites, {"slug": "e2e-extras-a"}), (nb.dcim.sites, {"slug": "e2e-extras-b"}),
                        (nb.dcim.device_roles, {"slug": "e2e-extras-role"}), (nb.dcim.device_types, {"slug": "e2e-extras-box"}),
                        (nb.dcim.manufacturers, {"slug": "e2e-extras-maker"}), (nb.extras.config_contexts, {"name": "E2E syslog"}),
                        (nb.extras.config_templates, {"name": "E2E config"}), (nb.extras.export_templates, {"name": "e2e-csv"}),
                        (nb.extras.saved_filters, {"slug": "e2e-planned"}), (nb.extras.custom_fields, {"name": "e2e_colour"}),
                        (nb.extras.custom_field_choice_sets, {"name": "E2E colours"})):
        for obj in list(ep.filter(**filters)):
            obj.delete()


clean()


def png(width, height):
    """A real width x height RGB PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\x10\x80\xf0" * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def create(endpoint, **data):
    obj = endpoint.create(**data)
    made.append(obj)
    return obj


# Custom field choice set and a selection custom field using it.
colours = create(nb.extras.custom_field_choice_sets, name="E2E colours", extra_choices=[["red", "Red"], ["blue", "Blue"], ["amber", "Amber"]], order_alphabetically=True)
check(colours.choices_count == 3, f"choices_count is 3, got {colours.choices_count}")
check([list(c) for c in colours.extra_choices] == [["amber", "Amber"], ["blue", "Blue"], ["red", "Red"]], f"extra choices sorted by value, got {colours.extra_choices}")
choices = http.get(f"{URL}/api/extras/custom-field-choice-sets/{colours.id}/choices/", params={"q": "re"}).json()
check(choices["results"] == [{"id": "red", "display": "Red"}], f"/choices/?q=re, got {choices}")
cf = create(nb.extras.custom_fields, name="e2e_colour", type="select", content_types=["dcim.site"], choice_set=colours.id)
check(cf.choice_set.id == colours.id and cf.choice_set.name == "E2E colours", f"custom field's choice_set, got {cf.choice_set}")

site_a = create(nb.dcim.sites, name="E2E Extras A", slug="e2e-extras-a", status="planned", custom_fields={"e2e_colour": "red"})
site_b = create(nb.dcim.sites, name="E2E Extras B", slug="e2e-extras-b", status="active", custom_fields={"e2e_colour": "blue"})
check(site_a.custom_fields["e2e_colour"] == "red", f"custom field value, got {site_a.custom_fields}")
try:
    nb.dcim.sites.create(name="E2E Extras C", slug="e2e-extras-c", custom_fields={"e2e_colour": "green"})
    check(False, "a value outside the choice set is refused")
except pynetbox.RequestError as e:
    check(e.req.status_code == 400 and "custom_fields" in e.error, f"refused with a 400 on custom_fields, got {e.req.status_code} {e.error}")

# Saved filter applied to a list.
saved = create(nb.extras.saved_filters, name="E2E planned", slug="e2e-planned", content_types=["dcim.site"], parameters={"status": ["planned"], "slug__isw": "e2e-extras-"})
found = [s.slug for s in nb.dcim.sites.filter(filter="e2e-planned")]
check(found == ["e2e-extras-a"], f"?filter=e2e-planned, got {found}")
found = sorted(s.slug for s in nb.dcim.sites.filter(filter_id=saved.id, status="active"))
check(found == ["e2e-extras-a", "e2e-extras-b"], f"?filter_id= with status=active, got {found}")

# Export template rendered over a filtered list.
create(nb.extras.export_templates, name="e2e-csv", content_types=["dcim.site"], template_code="{% for s in queryset %}{{ s.slug }};{{ s.custom_fields.e2e_colour }}\n{% endfor %}", mime_type="text/csv", file_extension="csv")
res = http.get(f"{URL}/api/dcim/sites/", params={"export": "e2e-csv", "slug__isw": "e2e-extras-"})
check(res.status_code == 200 and res.headers.get("Content-Type") == "text/csv", f"export status and type, got {res.status_code} {res.headers.get('Content-Type')}")
check(res.headers.get("Content-Disposition") == 'attachment; filename="netbox_sites.csv"', f"export file name, got {res.headers.get('Content-Disposition')}")
check(res.text == "e2e-extras-a;red\ne2e-extras-b;blue", f"export text, got {res.text!r}")

# Config template: render with data, and render-config of a device through its role.
tpl = create(nb.extras.config_templates, name="E2E config", template_code="hostname {{ device.name }}\nsyslog {{ syslog }}\nvlan {{ vlan }}\n")
out = http.post(f"{URL}/api/extras/config-templates/{tpl.id}/render/", json={"device": {"name": "x"}, "syslog": "s", "vlan": 1}).json()
check(out.get("content") == "hostname x\nsyslog s\nvlan 1", f"render/ content, got {out}")
check(out.get("configtemplate", {}).get("id") == tpl.id, f"render/ names the template, got {out.get('configtemplate')}")
maker = create(nb.dcim.manufacturers, name="E2E Extras maker", slug="e2e-extras-maker")
dtype = create(nb.dcim.device_types, manufacturer=maker.id, model="E2E Extras box", slug="e2e-extras-box")
role = create(nb.dcim.device_roles, name="E2E Extras role", slug="e2e-extras-role", config_template=tpl.id)
check(role.config_template.id == tpl.id, f"role's config_template, got {role.config_template}")
context = create(nb.extras.config_contexts, name="E2E syslog", data={"syslog": "10.0.0.9"})
device = create(nb.dcim.devices, name="e2e-extras-1", device_type=dtype.id, role=role.id, site=site_a.id)
rendered = device.render_config.create({"vlan": 42}) if hasattr(device, "render_config") else http.post(f"{URL}/api/dcim/devices/{device.id}/render-config/", json={"vlan": 42}).json()
check(rendered.get("content") == "hostname e2e-extras-1\nsyslog 10.0.0.9\nvlan 42", f"render-config content, got {rendered}")
text = http.post(f"{URL}/api/dcim/devices/{device.id}/render-config/", json={"vlan": 7}, headers={"Accept": "text/plain"})
check(text.headers.get("Content-Type", "").startswith("text/plain") and text.text.endswith("vlan 7"), f"render-config as text, got {text.headers.get('Content-Type')} {text.text!r}")

# Content types: stable ids, NetBox's fields.
ct = nb.extras.content_types.get(app_label="dcim", model="site")
check(ct is not None and ct.display == "dcim | site" and ct.app_label == "dcim", f"content type dcim.site, got {ct}")
again = nb.extras.content_types.get(ct.id)
check(again.model == "site", f"content type by id, got {again}")
check(nb.extras.content_types.count() > 40, "every type has a content type")

# Image attachments: uploaded as a form (pynetbox sends JSON only, so requests does it), then read,
# renamed and deleted with pynetbox; the image is served back at its URL until the attachment goes.
image = png(6, 4)
up = http.post(f"{URL}/api/extras/image-attachments/", data={"content_type": "dcim.site", "object_id": site_a.id, "name": "E2E front"}, files={"image": ("front.png", image, "image/png")})
check(up.status_code == 201, f"image upload, got {up.status_code} {up.text}")
att = nb.extras.image_attachments.get(up.json().get("id"))
check(att is not None and att.content_type == "dcim.site" and att.object_id == site_a.id, f"image attachment read back, got {att}")
check((att.image_width, att.image_height) == (6, 4), f"size from the bytes, got {att.image_width}x{att.image_height}")
check(att.parent["id"] == site_a.id if isinstance(att.parent, dict) else att.parent.id == site_a.id, f"parent, got {att.parent}")
served = http.get(att.image)
check(served.status_code == 200 and served.content == image and served.headers.get("Content-Type") == "image/png", f"image served at {att.image}, got {served.status_code} {served.headers.get('Content-Type')}")
listed = [a.id for a in nb.extras.image_attachments.filter(content_type="dcim.site", object_id=site_a.id)]
check(listed == [att.id], f"filtered by parent, got {listed}")
att.name = "E2E renamed"
check(att.save(), "renaming with pynetbox saves")
check(nb.extras.image_attachments.get(att.id).name == "E2E renamed", "renamed")
bad = http.post(f"{URL}/api/extras/image-attachments/", data={"content_type": "dcim.site", "object_id": site_a.id}, files={"image": ("x.png", b"<svg/>", "image/png")})
check(bad.status_code == 400 and "image" in bad.json(), f"a non-image is refused on image, got {bad.status_code} {bad.text}")
att.delete()
check(http.get(att.image).status_code == 404, "the file is gone with its attachment")

# Bookmarks, the dashboard and user preferences (the caller's own).
bookmark = create(nb.extras.bookmarks, object_type="dcim.site", object_id=site_a.id, user=nb.users.users.get(username="admin").id)
check(bookmark.object.id == site_a.id, f"bookmark's object, got {bookmark.object}")
dash = http.patch(f"{URL}/api/extras/dashboard/", json={"layout": [{"id": "1", "x": 0, "y": 0, "w": 4, "h": 3}], "config": {"1": {"class": "extras.NoteWidget"}}})
check(dash.status_code == 200 and dash.json()["layout"][0]["w"] == 4, f"dashboard PATCH, got {dash.status_code} {dash.text}")
http.delete(f"{URL}/api/extras/dashboard/")
prefs = http.patch(f"{URL}/api/users/config/", json={"e2e": {"a": 1}}).json()
prefs = http.patch(f"{URL}/api/users/config/", json={"e2e": {"b": 2}}).json()
check(prefs.get("e2e") == {"a": 1, "b": 2}, f"users/config merges, got {prefs}")
plugins = list(nb.plugins.installed_plugins())  # pynetbox 7.0 yields the list's elements
check(plugins == [], f"no plugins installed, got {plugins}")

for obj in [] if KEEP else reversed(made):
    try:
        obj.delete()
    except pynetbox.RequestError as e:
        check(False, f"deleting {obj}: {e.error}")

print(f"{checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
