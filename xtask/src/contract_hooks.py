# Schemathesis hooks for `cargo xtask contract` (loaded through SCHEMATHESIS_HOOKS).
#
# Generated ids are random UUIDs, so without help nearly every request that names a board,
# feedback item, stage, ... is a 404 and the code behind it is never fuzzed. This hook swaps
# most generated UUID values for ids of the resources `cargo xtask contract` seeded
# (SOUNDING_CONTRACT_IDS, a JSON object kind -> [ids]). Only values that already are UUIDs
# are swapped, so a schema-valid case stays valid and an invalid one stays invalid. The choice
# hashes the generated value, so a fixed --seed still gives a fixed run.

import hashlib
import json
import os
import re

import schemathesis

IDS = json.loads(os.environ.get("SOUNDING_CONTRACT_IDS", "{}"))
UUID = re.compile(r"^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")

# Body fields that name one kind of resource wherever they appear.
FIELD_KIND = {
    "boardId": "board",
    "feedbackId": "feedback",
    "mergeFeedbackId": "feedback",
    "roadmapId": "roadmap",
    "stageId": "stage",
    "topicId": "topic",
    "documentId": "document",
    "tagId": "tag",
    "subscriberId": "subscriber",
    "commentId": "comment",
}

# What `id` names, by the operation's resource (the part of the path before the dot).
ID_KIND = {
    "feedback-boards": "board",
    "feedbacks": "feedback",
    "roadmaps": "roadmap",
    "stages": "stage",
    "topics": "topic",
    "documents": "document",
    "tags": "tag",
    "subscribers": "subscriber",
    "users": "user",
    "api-keys": "apiKey",
    "automation": "webhook",
    "feedback-comments": "comment",
    "topic-comments": "comment",
    "notifications": "notification",
}


def _pick(kind, value):
    ids = IDS.get(kind) or []
    if not ids or not isinstance(value, str) or not UUID.match(value):
        return value
    digest = hashlib.sha256(value.encode()).digest()
    # One in four keeps its random UUID, so the not-found paths stay covered.
    if digest[0] % 4 == 0:
        return value
    return ids[digest[1] % len(ids)]


def _resource(path):
    last = path.rsplit("/", 1)[-1]
    return last.split(".", 1)[0]


def _map(fields, resource):
    for name, value in list(fields.items()):
        kind = ID_KIND.get(resource) if name == "id" else FIELD_KIND.get(name)
        if kind is None:
            continue
        if isinstance(value, list):
            fields[name] = [_pick(kind, v) for v in value]
        else:
            fields[name] = _pick(kind, value)


@schemathesis.hook
def map_case(context, case):
    resource = _resource(case.path)
    if isinstance(case.body, dict):
        _map(case.body, resource)
    if isinstance(case.query, dict):
        _map(case.query, resource)
    return case
