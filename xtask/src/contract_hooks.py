# Schemathesis hooks for `cargo xtask contract` (loaded through SCHEMATHESIS_HOOKS).
#
# Generated ids are random UUIDs, so without help nearly every request that names a board,
# feedback item, stage, ... is a 404 and the code behind it is never fuzzed. This hook swaps
# most generated UUID values for ids of the resources `cargo xtask contract` seeded
# (SOUNDING_CONTRACT_IDS, a JSON object kind -> [ids]). Only values that already are UUIDs
# are swapped, so a schema-valid case stays valid and an invalid one stays invalid. The choice
# hashes the generated value, so a fixed --seed still gives a fixed run.

import ast
import hashlib
import json
import os
import re
import threading

import schemathesis

# CPython 3.11 keeps `ast.parse`'s recursion bookkeeping in state shared by all threads: when a
# collection during one worker's parse runs code that lets the other worker parse too, the
# first fails with "SystemError: AST constructor recursion depth mismatch" (CPython
# gh-106905). Hypothesis parses source files to describe lambdas, so two workers could fail
# a case for no fault of the API. One parse at a time removes the race.
_PARSE_LOCK = threading.RLock()
_unlocked_parse = ast.parse


def _one_parse_at_a_time(*args, **kwargs):
    with _PARSE_LOCK:
        return _unlocked_parse(*args, **kwargs)


ast.parse = _one_parse_at_a_time

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
