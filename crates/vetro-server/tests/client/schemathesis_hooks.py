"""Schemathesis hooks for vetro's API description (loaded through SCHEMATHESIS_HOOKS).

Murano's JSON-patch media types are JSON documents: send them with the JSON
serializer, so the PATCH operations are exercised with the content types
Murano's clients use.
"""

import schemathesis

schemathesis.serializer.alias(
    ["application/murano-packages-json-patch", "application/env-model-json-patch"],
    "application/json",
)
