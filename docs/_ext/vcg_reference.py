"""Reference tables generated from the code at build time, so the docs cannot drift from it.

Every table here reads the single definition of what it lists, and lists whatever it finds
there: a name added to the code appears in the docs on the next build, with no edit.

* ``vcg-names``: our names, parsed from ``vcg_otel/otel/semconv.py`` (each constant, its
  value, its comment, its section), filtered by kind (``:kind: spans|attributes|events|...``).
* ``vcg-genai-names``: the OpenTelemetry GenAI convention names the package emits, found by
  reading every module for its uses of the conventions' constants.
* ``vcg-metrics``: every instrument as created (name, type, unit, description, buckets), by
  running the functions that create them against a recording meter, with the Prometheus
  name the real exporter gives each.
* ``vcg-annotations``: the Phoenix annotation names (``*_ANNOTATION`` in
  ``vcg_otel.phoenix.annotations``).
* ``vcg-settings``: every field of ``AuditConfig`` and ``TelemetryConfig`` with its variable,
  default, type and the meaning from the class docstring; ``vcg-env-other``: the variables
  read outside the configs.
* ``vcg-cli-help``: ``vcg-otel`` and each subcommand's ``--help``, from ``build_parser()``.
* ``vcg-exports``: the top-level names of ``vcg_otel`` and where each is documented.
* ``vcg-api``: autodoc for a package and every module under it (``:exclude:`` prefixes), each
  object documented once, under the package that re-exports it; ``vcg-api-rest``: every
  public module no other ``vcg-api`` covered, so a new or moved module is never left out.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import io
import os
import pkgutil
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

PACKAGE = "vcg_otel"

# --- tables as docutils nodes (so they render the same from Markdown and reST pages) ---------

def inline(text: str) -> list[nodes.Node]:
    """``text`` with ``backticked`` parts as literals (comments in the code use that style)."""
    out: list[nodes.Node] = []
    for i, part in enumerate(re.split(r"(?::[\w:]+:)?``?~?([^`]+)``?", text)):
        if part:
            out.append(nodes.literal(part, part) if i % 2 else nodes.Text(part))
    return out


def number(value: float) -> str:
    """``67,108,864`` and ``0.00005``, not ``6.71089e+07`` and ``5e-05``."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:.10f}".rstrip("0")


def code(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def table(headers: list[str], rows: Iterable[list[Any]], widths: list[int] | None = None
          ) -> nodes.table:
    rows = list(rows)
    tbl = nodes.table(classes=["vcg-generated"])
    group = nodes.tgroup(cols=len(headers))
    tbl += group
    for w in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    head += _row(headers)
    body = nodes.tbody()
    group += body
    for row in rows:
        body += _row(row)
    return tbl


def _row(cells: list[Any]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        if isinstance(cell, str):
            para.extend(inline(cell))
        elif isinstance(cell, nodes.Node):
            para += cell
        else:
            for i, part in enumerate(cell):
                if i:
                    para += nodes.Text(", ")
                para += part
        entry += para
        row += entry
    return row


# --- semconv.py, parsed: constant, value, comment, section -----------------------------------

@dataclass(frozen=True)
class Name:
    constant: str
    value: Any
    comment: str
    section: str


def semconv_names() -> list[Name]:
    """Every top-level constant of ``vcg_otel/otel/semconv.py`` with its value (evaluated by
    importing the module), its comment (trailing ``#``, else the ``#:`` lines above it, else
    a plain comment block directly above it) and its ``# --- section ---``."""
    from vcg_otel.otel import semconv

    source = Path(semconv.__file__).read_text(encoding="utf-8")
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string
    lines = source.splitlines()
    names: list[Name] = []
    section = ""
    last_line = 0
    for node in ast.parse(source).body:
        for n in range(last_line + 1, node.lineno):
            match = re.match(r"#\s*---\s*(.+?)\s*-+\s*$", comments.get(n, ""))
            if match:
                section = match.group(1)
        last_line = node.end_lineno or node.lineno
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        constant = node.targets[0].id
        trailing = comments.get(node.end_lineno or node.lineno, "")
        if trailing and not lines[(node.end_lineno or node.lineno) - 1].lstrip().startswith("#"):
            comment = trailing.lstrip("#").strip()
        else:
            above: list[str] = []
            n = node.lineno - 1
            while n in comments and lines[n - 1].lstrip().startswith("#") and not re.match(
                    r"#\s*---", comments[n]):
                above.insert(0, comments[n].lstrip("#:").strip())
                n -= 1
            comment = " ".join(above)
        names.append(Name(constant, getattr(semconv, constant), comment, section))
    return names


#: How a constant's name says what it is (the conventions semconv.py keeps); checked in order.
KINDS: list[tuple[str, str]] = [
    ("spans", r"^SPAN_"),
    ("span-kinds", r"^(KIND_|OPENINFERENCE_SPAN_KIND$)"),
    ("statuses", r"^STATUS_"),
    ("stages", r"^STAGE_"),
    ("event-attributes", r"^EVENT_ATTR_"),
    ("events", r"^EVENT_"),
    ("metric-attributes", r"^ATTR_"),
    ("metrics", r"^METRIC_"),
    ("buckets", r"_BUCKETS$"),
    ("settings", r"^ENV_"),
    ("values", r"^EVALUATION_NAME$"),
    ("prefixes", r"_PREFIX$"),
]


def kind_of(name: Name) -> str:
    for kind, pattern in KINDS:
        if re.search(pattern, name.constant):
            return kind
    return "attributes" if isinstance(name.value, str) else "other"


def outcome_values() -> list[str]:
    from vcg_otel.audit import Outcome

    return [o.value for o in Outcome]


class NamesDirective(SphinxDirective):
    """A table of semconv.py's names of one kind (see :data:`KINDS`)."""

    option_spec: ClassVar[dict[str, Any]] = {"kind": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(_module_file("vcg_otel.otel.semconv"))
        wanted = self.options["kind"]
        names = [n for n in semconv_names() if kind_of(n) == wanted]
        if wanted == "attributes":
            prefixed = [n for n in semconv_names() if n.constant == "COUNT_PREFIX"]
            rows = [[code(str(n.value)), code(n.constant), n.section, n.comment] for n in names]
            for n in prefixed:  # one attribute per outcome, named from the Outcome enum
                rows.append([[code(n.value + v) for v in outcome_values()], code(n.constant),
                             n.section, n.comment])
            return [table(["attribute", "constant", "semconv.py section", "note"], rows,
                          [3, 2, 2, 4])]
        if wanted == "buckets":
            return [table(["constant", "boundaries", "note"],
                          [[code(n.constant), ", ".join(number(b) for b in n.value), n.comment]
                           for n in names], [2, 4, 3])]
        return [table(["name", "constant", "note"],
                      [[code(str(n.value)), code(n.constant), n.comment] for n in names],
                      [3, 3, 5])]


def _module_file(module: str) -> str:
    return str(Path(importlib.import_module(module).__file__ or ""))


# --- GenAI convention names, found where the code uses them ----------------------------------

#: The modules of opentelemetry-semantic-conventions that vcg_otel takes names from, by the
#: alias or name the code imports them under.
def _convention_uses() -> dict[str, tuple[str, set[str]]]:
    """``{value: (constant, {modules using it})}`` for every attribute of a semantic
    conventions module (``opentelemetry.semconv...``) that a vcg_otel module reads."""
    uses: dict[str, tuple[str, set[str]]] = {}
    for module_name, path in _package_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}  # local name -> semconv module
        direct: dict[str, tuple[str, str]] = {}  # local name -> (semconv module, constant)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "opentelemetry.semconv"):
                for alias in node.names:
                    local = alias.asname or alias.name
                    value = getattr(importlib.import_module(node.module or ""), alias.name)
                    if inspect.ismodule(value):
                        aliases[local] = value.__name__
                    elif isinstance(value, str):
                        direct[local] = (node.module or "", alias.name)
        found: list[tuple[str, str]] = []
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.isupper()):
                found.append((aliases[node.value.id], node.attr))
        found.extend(direct.values())
        for semconv_module, constant in found:
            value = getattr(importlib.import_module(semconv_module), constant, None)
            if isinstance(value, str):
                entry = uses.setdefault(value, (constant, set()))
                entry[1].add(module_name)
    return uses


def _package_files() -> Iterator[tuple[str, Path]]:
    root = Path(_module_file(PACKAGE)).parent
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


class GenAINamesDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        uses = _convention_uses()
        rows = [[code(value), code(constant), [code(m) for m in sorted(modules)]]
                for value, (constant, modules) in sorted(uses.items())]
        return [table(["name", "constant (opentelemetry-semantic-conventions)", "used in"],
                      rows, [3, 4, 4])]


# --- metrics, as the code creates them -------------------------------------------------------

@dataclass
class Instrument:
    name: str
    kind: str
    unit: str
    description: str
    buckets: tuple[float, ...] | None
    created_in: str


class _RecordingMeter:
    """Stands in for a meter and remembers every instrument asked of it."""

    def __init__(self, made: list[Instrument], where: str) -> None:
        self.made, self.where = made, where

    def _create(self, kind: str, name: str, unit: str = "", description: str = "",
                explicit_bucket_boundaries_advisory: Any = None, **_: Any) -> Any:
        self.made.append(Instrument(name, kind, unit, description,
                                    explicit_bucket_boundaries_advisory, self.where))
        from opentelemetry.metrics import NoOpMeter

        return getattr(NoOpMeter("docs"), f"create_{kind}")(name)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("create_"):
            return lambda *a, **k: self._create(attr[len("create_"):], *a, **k)
        raise AttributeError(attr)


class _RecordingProvider:
    def __init__(self, made: list[Instrument], where: str) -> None:
        self.meter = _RecordingMeter(made, where)

    def get_meter(self, *args: Any, **kwargs: Any) -> Any:
        return self.meter


def instruments() -> list[Instrument]:
    """Every instrument vcg_otel creates: the audit's (``instruments_for``) and the Phoenix
    annotation writer's (its constructor, no request sent)."""
    made: list[Instrument] = []
    from vcg_otel.otel.metrics import instruments_for

    instruments_for(_RecordingProvider(made, "vcg_otel.otel.metrics"))  # type: ignore[arg-type]
    try:
        from vcg_otel.phoenix import PhoenixAnnotationProcessor
    except ImportError as missing:  # the phoenix extra is part of the docs extra
        raise RuntimeError("building the docs needs the docs extra: pip install -e '.[docs]'"
                           ) from missing
    processor = PhoenixAnnotationProcessor(
        "http://127.0.0.1:9", meter_provider=_RecordingProvider(made, "vcg_otel.phoenix"))
    processor.shutdown()
    return made


def prometheus_names(made: list[Instrument]) -> dict[str, str]:
    """The names the real Prometheus exporter exposes, by recording one value on each
    instrument through an SDK meter provider with a ``PrometheusMetricReader``."""
    from opentelemetry.exporter.prometheus import PrometheusMetricReader
    from opentelemetry.sdk.metrics import MeterProvider
    from prometheus_client import REGISTRY, generate_latest

    reader = PrometheusMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    meter = provider.get_meter("docs")
    for inst in made:
        created = getattr(meter, f"create_{inst.kind}")(inst.name, inst.unit, inst.description)
        (created.add if inst.kind in ("counter", "up_down_counter") else created.record)(1)
    text = generate_latest(REGISTRY).decode()
    provider.shutdown()  # unregisters the reader's collector again
    exposed: dict[str, str] = {}
    for match in re.finditer(r"^# HELP (\S+) (.*)$", text, re.M):
        exposed[match.group(2)] = match.group(1)
    return {inst.name: exposed.get(inst.description, "") for inst in made}


class MetricsDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        made = instruments()
        prom = prometheus_names(made)
        rows = []
        for inst in made:
            edges = inst.buckets
            buckets = "" if not edges else (
                f"{len(edges)} buckets, {number(edges[0])} … {number(edges[-1])}")
            rows.append([code(inst.name), code(prom[inst.name]) if prom[inst.name] else "",
                         inst.kind, code(inst.unit), inst.description, buckets,
                         code(inst.created_in)])
        return [table(["instrument", "Prometheus name", "type", "unit", "description",
                       "buckets", "created in"], rows, [3, 4, 2, 2, 5, 3, 3])]


# --- Phoenix annotations -----------------------------------------------------------------------

class AnnotationsDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        module = importlib.import_module("vcg_otel.phoenix.annotations")
        self.env.note_dependency(_module_file("vcg_otel.phoenix.annotations"))
        rows = [[code(value), code(constant)] for constant, value in vars(module).items()
                if constant.endswith("_ANNOTATION") and isinstance(value, str)]
        return [table(["annotation name", "constant in vcg_otel.phoenix.annotations"], rows)]


# --- settings -----------------------------------------------------------------------------------

def docstring_attributes(kind: type) -> dict[str, str]:
    """The ``Attributes:`` section of a class docstring, as ``{field: text}`` (a line naming
    several fields, ``a, b, c: text``, gives each the text)."""
    doc = inspect.getdoc(kind) or ""
    section = doc.split("Attributes:", 1)[1] if "Attributes:" in doc else ""
    out: dict[str, str] = {}
    current: list[str] = []
    for line in section.splitlines():
        # a field name starts in column 4: a continuation line (column 8) that holds a
        # colon (``a private :class:`...```) is text, not another field
        match = re.match(r"^    (\w+(?:, \w+)*):\s*(.*)$", line)
        if match:
            current = [f.strip() for f in match.group(1).split(",")]
            for f in current:
                out[f] = match.group(2).strip()
        elif line.startswith("        ") and current:
            for f in current:
                out[f] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            break
    return out


def _default(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    if isinstance(value, tuple) and not value:
        return "()"
    return repr(value)


class SettingsDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        from vcg_otel.config import AuditConfig, TelemetryConfig

        rows = []
        for kind in (AuditConfig, TelemetryConfig):
            self.env.note_dependency(inspect.getfile(kind))
            meaning = docstring_attributes(kind)
            for f in dataclasses.fields(kind):
                if not f.init:
                    continue
                env = f.metadata.get("env")
                rows.append([code(f"{kind.__name__}.{f.name}"), code(env) if env else "—",
                             code(_default(f.metadata.get("default"))), code(str(f.type)),
                             meaning.get(f.name, "")])
        return [table(["field", "variable", "default", "type", "meaning"], rows,
                      [3, 4, 2, 3, 7])]


class OtherEnvDirective(SphinxDirective):
    """Variables named in semconv.py that no config field reads."""

    def run(self) -> list[nodes.Node]:
        from vcg_otel.config import env_vars

        in_configs = set(env_vars())
        rows = [[code(n.value), code(n.constant), n.comment] for n in semconv_names()
                if kind_of(n) == "settings" and n.value not in in_configs]
        return [table(["variable", "constant", "note"], rows, [4, 3, 6])]


# --- the CLI's help ------------------------------------------------------------------------------

class CliHelpDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        import argparse

        from vcg_otel.cli import build_parser

        self.env.note_dependency(_module_file("vcg_otel.cli"))
        previous = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "100"
        try:
            parser = build_parser()
            texts = [parser.format_help()]
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    texts += [sub.format_help() for sub in action.choices.values()]
        finally:
            if previous is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = previous
        out: list[nodes.Node] = []
        for text in texts:
            block = nodes.literal_block(text, text)
            block["language"] = "text"
            out.append(block)
        return out


# --- the API ------------------------------------------------------------------------------

def public_modules() -> list[str]:
    """Every importable module of the package whose dotted path has no ``_`` part."""
    package = importlib.import_module(PACKAGE)
    found = [PACKAGE]
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return sorted(found)


def _exported(module: str) -> set[str]:
    return set(getattr(importlib.import_module(module), "__all__", ()) or ())


def api_lines(modules: list[str]) -> list[str]:
    """reST for autodoc of ``modules``, each object once: a package documents what its
    ``__all__`` re-exports; a module documents what it defines itself (its ``__all__``, or its
    public names), less what a package above it already documents."""
    by_package: dict[str, set[str]] = {}
    lines: list[str] = []
    for module in modules:
        mod = importlib.import_module(module)
        exported = _exported(module)
        above: set[str] = set()
        parent = module
        while "." in parent:
            parent = parent.rsplit(".", 1)[0]
            above |= by_package.get(parent, set())
        if hasattr(mod, "__path__") and exported:
            by_package[module] = exported
            members = exported - above
        else:
            defined = _defined(module)
            members = ({n for n in exported if n in defined or not _is_imported(mod, n)}
                       if exported else defined) - above
        lines += [module, "-" * len(module), "", f".. automodule:: {module}"]
        if module.rsplit(".", 1)[-1] in above:  # gate.normalize: a module and a function
            lines.append("   :no-index:")
        lines.append("   :members: " + ", ".join(sorted(members)) if members
                     else "   :no-members:")
        lines.append("")
    return lines


def _defined(module: str) -> set[str]:
    """Public classes and functions defined in ``module`` (not imported into it)."""
    mod = importlib.import_module(module)
    return {name for name, value in vars(mod).items() if not name.startswith("_")
            and getattr(value, "__module__", None) == module}


def _is_imported(mod: Any, name: str) -> bool:
    value = getattr(mod, name, None)
    origin = getattr(value, "__module__", None)
    return origin is not None and origin != mod.__name__ and not inspect.ismodule(value)


_API_USE = re.compile(r"vcg-api::[ \t]+(\S+)[ \t]*\n(?:[ \t]+:exclude:[ \t]+(.*)\n)?")


def api_modules(root: str, excluded: list[str]) -> list[str]:
    return [m for m in public_modules() if (m == root or m.startswith(root + "."))
            and not any(m == e or m.startswith(e + ".") for e in excluded)]


def covered_modules(srcdir: Path) -> set[str]:
    """The modules every ``vcg-api`` directive of the docs covers, read from the sources (so
    the order pages are read in does not matter)."""
    covered: set[str] = set()
    for path in srcdir.rglob("*"):
        if path.suffix in (".rst", ".md") and "drafts" not in path.relative_to(srcdir).parts:
            for match in _API_USE.finditer(path.read_text(encoding="utf-8")):
                covered.update(api_modules(match.group(1), (match.group(2) or "").split()))
    return covered


class ApiDirective(SphinxDirective):
    """``.. vcg-api:: vcg_otel.gate``: autodoc for it and every public module under it."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {"exclude": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        modules = api_modules(self.arguments[0], (self.options.get("exclude") or "").split())
        return self.parse(api_lines(modules))

    def parse(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source=self.get_source_info()[0]),
                                 container)
        return container.children


class ApiRestDirective(ApiDirective):
    """Every public module no ``vcg-api`` directive of the docs covers."""

    required_arguments = 0

    def run(self) -> list[nodes.Node]:
        covered = covered_modules(Path(self.env.srcdir))
        rest = [m for m in public_modules() if m not in covered and m != PACKAGE]
        return self.parse(api_lines(rest))


def documented_name(obj: Any, name: str) -> str:
    """Where ``vcg-api`` documents ``obj``: under the outermost package below the top level
    whose ``__all__`` re-exports it, else under the module that defines it."""
    module = getattr(obj, "__module__", None) or PACKAGE
    parts = module.split(".")
    for i in range(2, len(parts) + 1):
        candidate = ".".join(parts[:i])
        mod = importlib.import_module(candidate)
        if hasattr(mod, "__path__") and name in _exported(candidate):
            return f"{candidate}.{name}"
    return f"{module}.{name}"


def xref(target: str, text: str) -> nodes.Node:
    ref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=target,
                                refexplicit=True, refwarn=False)
    ref += code(text)
    return ref


class ExportsDirective(SphinxDirective):
    """The names ``import vcg_otel`` offers, each linked to its entry in the API pages."""

    def run(self) -> list[nodes.Node]:
        import vcg_otel

        rows = []
        for name in vcg_otel.__all__:
            if name == "__version__":
                rows.append([code(name), f"the package version, {vcg_otel.__version__}"])
                continue
            obj = getattr(vcg_otel, name)
            doc = (inspect.getdoc(obj) or "").split("\n\n", 1)[0].replace("\n", " ")
            rows.append([xref(documented_name(obj, name), name), doc])
        return [nodes.paragraph(text=f"{len(vcg_otel.__all__)} names, in vcg_otel.__all__:"),
                table(["name", "summary (first paragraph of its docstring)"], rows, [2, 8])]


def escape_star_params(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                       lines: list[str]) -> None:
    """napoleon writes ``:param **settings:`` for a line naming several parameters
    (``config, telemetry, **settings: ...``), which docutils reads as unclosed emphasis."""
    for i, line in enumerate(lines):
        lines[i] = re.sub(r"^(\s*:param )(\*{1,2})(\w+:)",
                          lambda m: m.group(1) + "\\*" * len(m.group(2)) + m.group(3), line)


class LayoutDirective(SphinxDirective):
    """Every module of the package (private ones too) with the first sentence of its
    docstring, as a tree: the layout as it is, not as it was when someone wrote it down."""

    def run(self) -> list[nodes.Node]:
        lines = []
        for module, path in _package_files():
            depth = module.count(".")
            first = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "")
            first = re.split(r"(?<=[.:])\s", first.replace("\n", " "), maxsplit=1)[0]
            name = module.rsplit(".", 1)[-1] + ("/" if path.name == "__init__.py" else "")
            lines.append(f"{'  ' * depth}{name:<{max(1, 24 - 2 * depth)}} {first}")
        text = "\n".join(lines)
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


class RunDirective(SphinxDirective):
    """``vcg-run:: examples/x.py``: the output of running the script now, from the repository
    root (the build fails if it fails)."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import subprocess
        import sys

        root = Path(self.env.srcdir).parent
        script = root / self.arguments[0]
        self.env.note_dependency(str(script))
        done = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True,
                              text=True, timeout=120)
        if done.returncode:
            raise self.error(f"{self.arguments[0]} exited {done.returncode}: {done.stderr}")
        block = nodes.literal_block(done.stdout, done.stdout)
        block["language"] = "text"
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("vcg-layout", LayoutDirective)
    app.add_directive("vcg-run", RunDirective)
    app.connect("autodoc-process-docstring", escape_star_params, priority=900)
    app.add_directive("vcg-names", NamesDirective)
    app.add_directive("vcg-genai-names", GenAINamesDirective)
    app.add_directive("vcg-metrics", MetricsDirective)
    app.add_directive("vcg-annotations", AnnotationsDirective)
    app.add_directive("vcg-settings", SettingsDirective)
    app.add_directive("vcg-env-other", OtherEnvDirective)
    app.add_directive("vcg-cli-help", CliHelpDirective)
    app.add_directive("vcg-api", ApiDirective)
    app.add_directive("vcg-api-rest", ApiRestDirective)
    app.add_directive("vcg-exports", ExportsDirective)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True,
            "env_version": 1}
