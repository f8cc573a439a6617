"""The systems ledgerspec checks, by name: one ``System`` record each, found through entry points.

Each system is described once, by the record its own folder builds (``conformance/<system>/_system.py``),
and registered in the ``ledgerspec.systems`` entry-point group (pyproject.toml), as adapters are in
``ledgerspec.adapters``. Every command gets a system from here by its name and reads what it needs
from the record; none imports a system's package or tests its name.

Two engines search them. A lockstep system (a model that answers each step exactly: the cursor state,
the txlog writer, a test's FIFO queue) is searched by the lockstep engine (``conformance/lockstep/``)
through the record's ``init``/``step``/``claimed``/``facts``. A system whose answers a model allows as
a set, judged by an observation monitor (the broker entry cache: ``spec/cache``), brings an engine of
its own: its record's ``commands`` capability, which every command then runs (:func:`commands_of`).

Importing this module is cheap (the command line's usage errors import it): the entry points are read
on first use, and a record is built only when a command asks for that system.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from ledgerspec.conformance._errors import InputError

GROUP = "ledgerspec.systems"
"""The entry-point group whose every entry names a zero-argument function returning a :class:`System`."""


class Checked(Protocol):
    """An invariant as the systems declare it: an id and one check."""

    @property
    def id(self) -> str:
        """Its id (``CURSOR-MODEL``)."""

    @property
    def check(self) -> Callable[[Any], str | None]:
        """Step facts -> why they break it, or None."""


@dataclass(frozen=True)
class ProcessHooks:
    """What a system adds to process protocol v1 (conformance/protocol/README.md): its schemas, its results' shapes."""

    schema_dir: Path
    """Its schemas (``conformance/protocol/<system>/v1/`` for the shipped ones)."""
    result_problem: Callable[[Any, Any, frozenset[str]], str | None]
    """(op, result, claimed capabilities) -> what is wrong with the result's shape, or None."""
    where: Callable[[int, Any, Any], str] = lambda _step, op, _seq: f"apply {op.describe()}"
    """(step number, op, seq) -> how a fault names the step."""
    count_error: str = "expected one result"
    """The fault's words for an ``apply`` reply without exactly one result."""
    default_profile: str = ""
    """The profile a reference process serves without ``--profile``."""


@dataclass(frozen=True)
class Commands:
    """The commands of a system with an engine of its own: each takes the parsed arguments, returns the exit status.

    A system without (``System.commands`` None) is searched by the lockstep engine, whose commands read
    its record (``conformance/lockstep/_commands.py``).
    """

    conform: Callable[[Any], int]
    replay: Callable[[Any, Any], int]
    """(arguments, the case's JSON data)."""
    smoke: Callable[[Any], int]
    matrix: Callable[[Any], int]
    mutants: Callable[[Any], int]
    show: Callable[[Any], int]
    """``spec show``."""
    record: Callable[[Any], int]
    """``traces record``."""
    adapters: Callable[[], list[str]]
    """Its lines of ``ledgerspec adapters``."""
    check_trace: Callable[..., Any]
    """``traces check`` of one trace: (path, engine, master, budget, spark, on_rows) -> its result."""
    trace_rows: Callable[[str], int | None]
    """A trace's rows from its Parquet footers, for the progress bar (None: unknown before reading)."""
    generate: Callable[[Any], int]
    """``traces generate``."""
    bench_traces: Callable[[Any], int]
    """``traces bench``."""
    bench: Callable[[Any], int]
    """``ledgerspec bench``."""
    deviations: Callable[[Any], int]
    """``ledgerspec deviations``: DEVIATIONS.md (the default system's writes every system's section)."""


@dataclass(frozen=True)
class System:
    """One modelled system: its spec, how conformance searches it, its adapters, traces and rendering.

    The spec part (profiles, ``init``/``step``, invariants, configuration and operations as JSON, the
    trace vocabulary) is the system's ``spec/<system>`` package; the rest is ``conformance/<system>``'s.
    """

    name: str
    """Hyphenated, as ``--system`` and a trace header give it."""
    profiles: tuple[str, ...]
    init: Callable[[str, Any], Any]
    """(profile, config) -> the model."""
    step: Callable[[Any, Any], tuple[Any, Any]]
    """(model, op) -> (model after, the answer expected)."""
    claimed: Callable[[str], Sequence[Any]]
    """The invariants a profile claims, in catalogue order (each a :class:`Checked`, and more)."""
    facts: Callable[..., Any]
    """Builds what a check reads: (model before, model after, op, result, expected, **reported)."""
    capabilities: tuple[str, ...] = ()
    """Every capability an implementation may claim; a report names those its candidate did not."""
    reported: Callable[[Any], dict[str, Any]] = lambda _candidate: {}
    """candidate -> what it reported besides its answer in the step just taken (the cursor's writes)."""
    reads: dict[str, str] = field(default_factory=dict)
    """Invariant id -> the reported field its check reads: not run for a candidate that reports none."""
    invariants: tuple[Any, ...] = ()
    """The whole catalogue (``id``, ``statement``, ``profiles``, ``citation``, ``trace_events``, ``check``)."""
    config: Any = None
    """Its configuration class (``from_dict``, ``to_dict``)."""
    op_from_dict: Callable[[dict[str, Any]], Any] = lambda data: data
    """An operation from its JSON object."""
    vocabulary: Any = None
    """Its trace events (``spec/_history.Vocabulary``)."""
    run_facts: Callable[[frozenset[str]], Callable[..., Any]] | None = None
    """``facts`` for a candidate claiming these capabilities (None: ``facts`` whatever it claims)."""
    machine: Callable[[Any], type] | None = None
    """A ``conformance.lockstep._engine.LockstepRun`` -> the Hypothesis state machine of its search."""
    reference: Callable[[str], Any] | None = None
    """profile -> a fresh in-process reference candidate."""
    mutants: Callable[[], Sequence[Any]] = tuple
    """Its mutants (``name``, ``profile``, ``description``, ``adapter()``), loaded when asked."""
    process: ProcessHooks | None = None
    """``exec:COMMAND`` adapters, where the system has a process protocol."""
    real: Callable[[], tuple[str, ...]] = tuple
    """The names of harnesses of real code speaking that protocol (``adapters/_harness.SYSTEM_HARNESSES``,
    whose import is slow: only when asked)."""
    judge_real: Callable[..., bool] | None = None
    """``ledgerspec run``'s part 3 for its real code: (say, *, settings, seed, record) -> as declared."""
    real_rank: int = 0
    """Where ``run`` judges its real code among the systems' (the order before the registry: txlog, cursor)."""
    deviations: Callable[[], str] | None = None
    """Its section of DEVIATIONS.md (``ledgerspec deviations``), after the cache's."""
    findings: str = ""
    """The module of its design findings (``spec findings``: ``load_findings``, ``show``, ``render``), if any."""
    protocol_page: str = ""
    """Its process protocol page, for ``adapters`` and the help."""
    walk: Callable[[Any, str, Any, int, frozenset[str]], list[Any]] | None = None
    """(random.Random, profile, config, count, capabilities) -> operations for ``traces record``."""
    unclaimed: Callable[[Any, Sequence[Any], frozenset[str]], str | None] = lambda _config, _ops, _claims: None
    """(config, ops, capabilities) -> what of a run an adapter claiming these does not take, or None."""
    ends: Callable[[Any, Any], bool] = lambda _op, _result: False
    """(op, result) -> the history ends here (a cursor whose recovery failed is gone)."""
    columns: tuple[str, ...] = ()
    """The state columns of a counterexample's story (HTML and rich tables)."""
    describe: Callable[[Any, Any, Any], tuple[dict[str, str], dict[str, Any], tuple[str, ...]]] | None = None
    """(model after, op, result) -> (column cells, numbers for the plot, marks) of one story step."""
    result_text: Callable[[Any], str] = json.dumps
    """How a story shows the model's answer."""
    plot: Callable[[Any, Any, Sequence[Any]], None] | None = None
    """(HtmlReport, Report, story steps) -> draws the counterexample's plot on the page."""
    commands: Callable[[], Commands] | None = None
    """An engine of its own (the cache's observation monitor): its commands; None: the lockstep engine's."""
    client: Callable[..., Any] | None = None
    """(command, *, timeout, validate_protocol) -> the factory of its ``exec:`` adapters (its real-code harnesses')."""
    check_references: Callable[..., bool] | None = None
    """``ledgerspec run``'s part 1: (args, out, page, document, title) -> whether its references all pass."""
    is_default: bool = False
    """The system ``--system`` means when not given (the cache)."""

    @classmethod
    def from_spec(cls, name: str, spec: Any, **fields: Any) -> System:
        """A record whose spec part is the spec package's names.

        ``PROFILES``, ``init``, ``step``, ``claimed``, ``Step`` (the facts), ``CAPABILITIES``, ``INVARIANTS``
        and ``op_from_dict``; ``fields`` are the rest (or override one).
        """
        names = {
            "profiles": "PROFILES",
            "init": "init",
            "step": "step",
            "claimed": "claimed",
            "facts": "Step",
            "capabilities": "CAPABILITIES",
            "invariants": "INVARIANTS",
            "op_from_dict": "op_from_dict",
        }
        return cls(name=name, **{field: getattr(spec, attr) for field, attr in names.items()} | fields)

    def references(self) -> dict[str, tuple[str, Callable[[], Any]]]:
        """``reference-<profile>`` -> (profile, factory) of its in-process references."""
        make = self.reference
        if make is None:
            return {}
        return {f"reference-{p}": (p, _bind(make, p)) for p in self.profiles}

    def facts_for(self, capabilities: frozenset[str]) -> Callable[..., Any]:
        """The step facts for a candidate claiming ``capabilities``."""
        return self.facts if self.run_facts is None else self.run_facts(capabilities)


@dataclass(frozen=True)
class Mutant:
    """One plausible bug planted in a profile's reference, for every system: ``mutants`` must kill it.

    ``replacement`` is the class that plants it in place of the reference's own; ``description`` says the bug
    (by default the first line of the replacement's docstring). ``adapter()`` is a fresh candidate running
    it: each engine's subclass says how (the cache's reference adapter takes the replacement cache class, a
    lockstep system's reference adapter builds its implementation through an attribute: :class:`ReferenceMutant`).
    """

    name: str
    profile: str
    replacement: type
    description: str = ""

    def __post_init__(self) -> None:
        if not self.description:
            first = (self.replacement.__doc__ or "").strip().splitlines()
            object.__setattr__(self, "description", first[0] if first else self.replacement.__name__)

    def adapter(self) -> Any:
        """A fresh candidate running the mutant."""
        raise NotImplementedError


@dataclass(frozen=True)
class ReferenceMutant(Mutant):
    """A lockstep system's mutant: its reference adapter, building ``replacement`` instead.

    A system's mutants subclass it, naming the reference adapter (``reference``) and the attribute through
    which it builds its implementation (``slot``: ``cursor_class``, ``writer_class``).
    """

    reference: ClassVar[Callable[[str], Any]]
    slot: ClassVar[str]

    @classmethod
    def each(cls, profile: str, *replacements: type) -> tuple[Any, ...]:
        """A mutant of ``profile`` per class, each named ``<profile>-<class name in kebab case>``."""
        return tuple(cls(f"{profile}-{_kebab(r.__name__)}", profile, r) for r in replacements)

    def adapter(self) -> Any:
        """A fresh reference adapter of the profile, building the mutant."""
        adapter = type(self).reference(self.profile)
        setattr(adapter, self.slot, self.replacement)
        return adapter


def _kebab(name: str) -> str:
    """``FooterFirst`` -> ``footer-first``."""
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in name).lstrip("-")


def _bind(make: Callable[[str], Any], profile: str) -> Callable[[], Any]:
    return lambda: make(profile)


class Registry(Mapping[str, System]):
    """Every system installed, by name: entry points read on first use, records built when asked."""

    def __init__(self, group: str = GROUP) -> None:
        self._group = group
        self._targets: dict[str, Any] | None = None
        self._built: dict[str, System] = {}

    def _entries(self) -> dict[str, Any]:
        if self._targets is None:
            from importlib.metadata import entry_points  # noqa: PLC0415 - only when a system is asked for

            found = {ep.name: ep for ep in entry_points(group=self._group)}
            self._targets = {name: found[name] for name in sorted(found)}
        return self._targets

    def refresh(self) -> None:
        """Read the entry points again (a test put another distribution on ``sys.path``)."""
        self._targets, self._built = None, {}

    def __getitem__(self, name: str) -> System:
        if name not in self._built:
            entry = self._entries()[name]
            system = entry.load()()
            if not isinstance(system, System) or system.name != name:
                raise InputError(f"entry point {name} = {entry.value} ({self._group}): not the System {name!r}")
            self._built[name] = system
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())


SYSTEMS = Registry()
"""Every system installed (the ``ledgerspec.systems`` entry points)."""


def names() -> tuple[str, ...]:
    """Every system ``--system`` takes, the default first."""
    return tuple(sorted(SYSTEMS, key=lambda name: (not SYSTEMS[name].is_default, name)))


def default() -> str:
    """The system a command checks without ``--system``."""
    return names()[0]


class Names(Sequence[str]):
    """``--system``'s choices, read from the registry only when argparse checks or shows them."""

    def __getitem__(self, index: Any) -> Any:
        return names()[index]

    def __len__(self) -> int:
        return len(names())

    def __contains__(self, name: object) -> bool:
        return name in SYSTEMS


class AllProfiles(Sequence[str]):
    """Every profile of every system, sorted (``traces record --profile``): read from the registry when checked."""

    def _all(self) -> list[str]:
        return sorted({profile for name in names() for profile in profiles_of(name)})

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())


def system_named(name: str, option: str = "--system") -> System:
    """The record of ``name``; an unknown name is an input error listing the known ones."""
    if name not in SYSTEMS:
        raise InputError(f"{option} {name}: unknown system; known: {', '.join(names())}")
    return SYSTEMS[name]


def lockstep_system(name: str) -> System | None:
    """The record of ``name`` if the lockstep engine searches it; None for a system with an engine of its own."""
    system = system_named(name)
    return system if system.commands is None else None


def commands_of(name: str) -> Commands:
    """What each command runs for ``name``: its own engine's commands, or the lockstep engine's over its record."""
    system = system_named(name)
    if system.commands is not None:
        return system.commands()
    return load("ledgerspec.conformance.lockstep._commands:commands")(system)  # type: ignore[no-any-return]


def profiles_of(name: str) -> tuple[str, ...]:
    """A system's profiles."""
    return system_named(name).profiles


def lazy(target: str) -> Callable[..., Any]:
    """The function ``module:attr``, imported on its first call: a record's hooks load their modules when used."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return load(target)(*args, **kwargs)

    call.target = target  # type: ignore[attr-defined]  # what it loads, for tests/unit/test_system_records.py
    return call


def load(target: str) -> Any:
    """The object ``module:attr`` names."""
    import importlib  # noqa: PLC0415

    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def lazy_exports(package: str, **names: str) -> Callable[[str], Any]:
    """A package's ``__getattr__`` importing each name from its module (``_machine``: of ``package``) when first used.

    A system's package must import cheaply: its record is read by the command line's usage errors.
    """

    def getattr_(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib  # noqa: PLC0415

        module = names[name]
        return getattr(importlib.import_module(module if "." in module else f"{package}.{module}"), name)

    return getattr_


__all__ = [
    "SYSTEMS",
    "AllProfiles",
    "Checked",
    "Commands",
    "Mutant",
    "Names",
    "ProcessHooks",
    "ReferenceMutant",
    "Registry",
    "System",
    "commands_of",
    "default",
    "lazy",
    "lazy_exports",
    "load",
    "lockstep_system",
    "names",
    "profiles_of",
    "system_named",
]
