"""Run by `cargo xtask clients` after openapi-python-client generated the client from
docs/openapi.json: every module imports, every operation has its module, and every object
schema of the document became one model class with all its properties (a schema turned into
a union of `...Type0`/`...Type1` classes loses them, without a warning; issue 18, item 5).

usage: check.py <directory holding the client package> <package name> <openapi.json>
"""

import importlib
import json
import pkgutil
import re
import sys

import attrs


def class_name(schema_name):
    # The generator's own rule for PascalCase schema names: kept as they are.
    return schema_name[0].upper() + schema_name[1:]


def main():
    root, package_name, document_path = sys.argv[1:4]
    sys.path.insert(0, root)
    with open(document_path) as f:
        document = json.load(f)
    package = importlib.import_module(package_name)
    modules = [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(package.__path__, package_name + ".")
    ]
    problems = []

    operations = [
        (path, method)
        for path, item in document["paths"].items()
        for method in item
        if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace")
    ]
    endpoints = [m for m in modules if ".api." in m.__name__ and hasattr(m, "sync_detailed")]
    if len(endpoints) != len(operations):
        problems.append(f"{len(operations)} operations in the document, {len(endpoints)} in the client")

    models = importlib.import_module(package_name + ".models")
    for name, schema in document["components"]["schemas"].items():
        properties = schema.get("properties")
        if not properties:
            continue
        cls = getattr(models, class_name(name), None)
        if cls is None:
            problems.append(f"{name}: no model class")
            continue
        fields = {f.alias or f.name for f in attrs.fields(cls) if f.name != "additional_properties"}
        if len(fields) != len(properties):
            problems.append(f"{name}: {len(properties)} properties, {len(fields)} model fields")
        open_ = any(f.name == "additional_properties" for f in attrs.fields(cls))
        if schema.get("additionalProperties") is False and open_:
            problems.append(f"{name}: closed in the document, open in the client")

    for problem in problems:
        print(f"clients: python: {problem}")
    print(
        f"clients: python: {len(modules)} modules import, {len(endpoints)} operations, "
        f"{sum(1 for s in document['components']['schemas'].values() if s.get('properties'))} "
        f"models checked: {'FAILED' if problems else 'ok'}"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
