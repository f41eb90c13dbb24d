#!/usr/bin/python3
"""End-to-end check of the change log and journal with Debian's python3-pynetbox (7.0):
edit an object, read its change log with nb.extras.object_changes.filter(...)
(request ids matching the responses' X-Request-ID, NetBox's prechange and
postchange data), and write a journal entry on it.

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/changelog.py

Every mismatch is printed as `FAIL: ...` and the script exits 1 if anything
failed; it removes what it made at the end.
"""
import os
import sys
import uuid

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
http.headers.update({"Authorization": f"Token {TOKEN}", "Accept": "application/json", "Content-Type": "application/json"})
suffix = uuid.uuid4().hex[:8]

site = nb.dcim.sites.create(name=f"changelog-{suffix}", slug=f"changelog-{suffix}", description="before")
try:
    site.description = "after"
    check(site.save(), "saving the edited site")

    changes = list(nb.extras.object_changes.filter(changed_object_type="dcim.site", changed_object_id=site.id))
    check(len(changes) == 2, f"two changes for the site, got {len(changes)}")
    actions = sorted(c.action.value for c in changes)
    check(actions == ["create", "update"], f"create and update, got {actions}")
    update = next((c for c in changes if c.action.value == "update"), None)
    if update is not None:
        check(update.prechange_data["description"] == "before", f"prechange description, got {update.prechange_data.get('description')}")
        check(update.postchange_data["description"] == "after", f"postchange description, got {update.postchange_data.get('description')}")
        check(update.object_repr == site.name, f"object_repr {update.object_repr}")
        check(update.changed_object.id == site.id, "changed_object is the site")
        check(update.user_name != "", "user_name set")

    # The request id of a write is the X-Request-ID of its response.
    r = http.patch(f"{URL}/api/dcim/sites/{site.id}/", json={"description": "third"})
    check(r.status_code == 200, f"PATCH with requests: {r.status_code}")
    rid = r.headers.get("X-Request-ID")
    by_request = list(nb.extras.object_changes.filter(request_id=rid))
    check(len(by_request) == 1 and by_request[0].changed_object_id == site.id, f"one change for request {rid}, got {len(by_request)}")
    check(len(list(nb.extras.object_changes.filter(action="delete", changed_object_id=site.id, changed_object_type="dcim.site"))) == 0, "no delete yet")

    entry = nb.extras.journal_entries.create(assigned_object_type="dcim.site", assigned_object_id=site.id, kind="warning", comments="Checked by the e2e suite")
    check(entry.kind.value == "warning", f"journal kind {entry.kind}")
    check(entry.created_by is not None, "created_by set to the caller")
    check(entry.assigned_object.id == site.id, "journal entry assigned to the site")
    listed = list(nb.extras.journal_entries.filter(assigned_object_type="dcim.site", assigned_object_id=site.id))
    check(len(listed) == 1 and listed[0].comments == "Checked by the e2e suite", f"journal entries of the site: {len(listed)}")
    journal_changes = list(nb.extras.object_changes.filter(changed_object_type="extras.journalentry", changed_object_id=entry.id))
    check(len(journal_changes) == 1, "the journal entry is change-logged too")
finally:
    site.delete()

deleted = list(nb.extras.object_changes.filter(changed_object_type="dcim.site", changed_object_id=site.id, action="delete"))
check(len(deleted) == 1 and deleted[0].changed_object is None, "the delete is logged, changed_object null")
check(len(list(nb.extras.journal_entries.filter(assigned_object_id=site.id, assigned_object_type="dcim.site"))) == 0, "the journal went with the site")

print(f"changelog.py: {checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
