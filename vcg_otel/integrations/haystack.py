"""Haystack components (extra: ``haystack``): a re-export of
:mod:`haystack_integrations.components.validators.vcg_otel`, where they live.

Haystack loads pipeline files only from allowed modules, ``haystack_integrations`` among them
by default; so the components are defined there (a pipeline saved with them names
``haystack_integrations.components.validators.vcg_otel.checkers.CitationConsistencyChecker``
and loads with a plain ``Pipeline.loads``), and this module keeps the import path of
vcg-otel 0.1 working. Pipeline files saved by 0.1 (which name
``vcg_otel.integrations.haystack.CitationConsistencyChecker``) still load with
``allowed_modules=["vcg_otel.integrations.haystack"]``, and are saved again under the new name.
"""

from __future__ import annotations

from haystack import component

from haystack_integrations.components.validators.vcg_otel import (
    Citation,
    CitationConsistencyChecker,
    ReplyCitationChecker,
)
from haystack_integrations.components.validators.vcg_otel.checkers import LEGACY_MODULE

__all__ = ["Citation", "CitationConsistencyChecker", "ReplyCitationChecker"]

# The names 0.1 saved pipelines under: Haystack finds a component type in its registry, which
# knows each class by where it is defined.
for _cls in (CitationConsistencyChecker, ReplyCitationChecker):
    component.registry.setdefault(f"{LEGACY_MODULE}.{_cls.__name__}", _cls)
