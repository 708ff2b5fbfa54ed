"""vcg_otel's Haystack components (extra ``vcg-otel[haystack]``), where Haystack looks for
integrations: ``haystack_integrations.components.validators.vcg_otel``.

:class:`CitationConsistencyChecker` checks ``Citation`` objects against the retrieved
documents (the original verbatim-citation-gate component's call); :class:`ReplyCitationChecker`
finds the citations in a generator's replies itself. A pipeline saved with either loads with a
plain ``Pipeline.loads``: Haystack allows the ``haystack_integrations`` namespace by default.
"""

from .checkers import CitationConsistencyChecker, ReplyCitationChecker
from .citation import Citation

__all__ = ["Citation", "CitationConsistencyChecker", "ReplyCitationChecker"]
