"""The ``qtheory`` command.

Each model contributes a subcommand: a module whose ``register(parser)`` adds the
subcommand's options to its parser and sets ``run``; add a new model by adding its name,
module and one-line help to :data:`COMMANDS`.  Only the module of the subcommand being run
is imported (``qtheory --help`` imports none), and a command module imports what its
``run`` needs when it runs, so a subcommand starts at the cost of its own work.  Options
convert their text with the ``type=`` helpers of :mod:`qtheory.core.arguments`.

``qtheory --version`` prints the installed version (``qtheory.__version__``) and
``qtheory --print-completion bash|zsh|tcsh`` a shell completion script for every
subcommand and option (written by shtab, from the same parser; see
``docs/shell-completion.md``).

Exit status and messages: 0 on success; 2 for invalid input, with one line on stderr
naming the subcommand (``qtheory table walks: error: ...``) and the option or parameter
(a bad option value, an option the subcommand does not take, with the closest one it
does take as a suggestion, or a ``ValueError``, ``TypeError`` or ``OverflowError``
raised by the command, a cost refusal of :mod:`qtheory.core.limits` among them); 1
with one line when a numerical method gives up (``ArithmeticError``,
``RuntimeError``), memory runs out or a file cannot be written (``OSError``); 130 when
interrupted (Ctrl-C).  No traceback for any of these; anything
else is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Collection, Sequence
from typing import Any

__all__ = ["COMMANDS", "Parser", "build_parser", "main"]

#: The shells ``qtheory --print-completion`` writes a script for (shtab's).
COMPLETION_SHELLS = ("bash", "zsh", "tcsh")

#: Subcommand name -> (its module, its one-line help in ``qtheory --help``).
COMMANDS = {
    "reproduce": ("qtheory.cli.reproduce", "regenerate every table, derivation and figure"),
    "gated": (
        "qtheory.cli.gated",
        "optimal gate, welfare and Price of Forgetting of the unobservable M/M/1 queue",
    ),
    "lossnet": ("qtheory.cli.lossnet", "the overloaded loss network (two or n classes)"),
    "walks": ("qtheory.cli.walks", "random-walk bounds behind PFI and SSS"),
    "verify": (
        "qtheory.verify.command",
        "re-check the certificates of certified claims with the independent checker",
    ),
    "check": ("qtheory.cli.check", "check one claim of the package at your own parameters"),
    "table": ("qtheory.cli.table", "LaTeX, Markdown or CSV tables for your own parameter grids"),
}


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line,
    ``PROG: error: MESSAGE (see PROG --help)``, with exit status 2 (no usage block).

    Subcommand parsers made by ``add_subparsers`` are of the same class, and each
    refuses the arguments it does not take itself, so that the error names the
    subcommand whose arguments they are (``qtheory gated: error: unrecognized
    arguments: --bogus``) and an option is never read as the next positional argument;
    a misspelled option gets the closest option of that (sub)command as a suggestion
    (``--arival-rate (did you mean --arrival-rate?)``).

    Examples
    --------
    >>> import contextlib, io
    >>> parser = Parser(prog="demo")
    >>> _ = parser.add_argument("--n", type=int, required=True)
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     try:
    ...         parser.parse_args([])
    ...     except SystemExit as exit:
    ...         print(exit.code)
    2
    >>> print(err.getvalue(), end="")
    demo: error: the following arguments are required: --n (see demo --help)
    """

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print ``message`` as one line and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        """Parse like :meth:`argparse.ArgumentParser.parse_known_args`, but refuse (one
        line, status 2) an option-like argument this parser does not know, before the
        others are parsed, and any argument left over.

        Parameters
        ----------
        args : sequence of str, optional
            The arguments (default ``sys.argv[1:]``).
        namespace : argparse.Namespace, optional
            Where to put the values.

        Returns
        -------
        tuple
            ``(namespace, [])``: nothing is left over.

        Examples
        --------
        >>> import contextlib, io
        >>> parser = Parser(prog="demo")
        >>> _ = parser.add_argument("--arrival-rate")
        >>> err = io.StringIO()
        >>> with contextlib.redirect_stderr(err):
        ...     try:
        ...         parser.parse_args(["--arival-rate", "3"])
        ...     except SystemExit as exit:
        ...         print(exit.code)
        2
        >>> print(err.getvalue(), end="")
        demo: error: unrecognized arguments: --arival-rate (did you mean --arrival-rate?) (see demo --help)
        """  # noqa: E501
        args = sys.argv[1:] if args is None else list(args)
        for arg in self._own_arguments(args):
            if self._unknown_option(arg):
                self.error(f"unrecognized arguments: {arg}{self._suggestion(arg)}")
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def _own_arguments(self, args: list[str]) -> list[str]:
        """The arguments before ``--`` and before the first subcommand name (those after
        it are the subcommand's)."""
        subcommands = {
            name
            for action in self._actions
            if isinstance(action, argparse._SubParsersAction)
            for name in action.choices
        }
        own = []
        for arg in args:
            if arg == "--" or arg in subcommands:
                break
            own.append(arg)
        return own

    def _unknown_option(self, arg: str) -> bool:
        """Whether ``arg`` looks like an option (a prefix character, and not a number
        such as ``-2`` or ``-inf``) that is none of this parser's, nor a prefix of one."""
        if len(arg) < 2 or arg[0] not in self.prefix_chars:
            return False
        try:
            float(arg)
        except ValueError:
            pass
        else:
            return False
        name = arg.split("=", 1)[0]
        known = self._option_string_actions
        if name in known or arg[:2] in known:  # an option, or a short one with its value
            return False
        return not (self.allow_abbrev and any(option.startswith(name) for option in known))

    def _suggestion(self, arg: str) -> str:
        """`` (did you mean OPTION?)`` for the option whose name (without its prefix
        characters, which every option shares) is closest to ``arg``'s, or nothing."""
        strip = self.prefix_chars
        names = {option.lstrip(strip): option for option in self._option_string_actions}
        close = difflib.get_close_matches(arg.split("=", 1)[0].lstrip(strip), names, n=1)
        return f" (did you mean {names[close[0]]}?)" if close else ""


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``qtheory`` parser: every subcommand of :data:`COMMANDS`, with the options of
    those in ``commands``.

    Parameters
    ----------
    commands : collection of str, optional
        The subcommands whose modules are imported and whose options are added (default:
        all).  The others are listed with their help but parse no options.

    Returns
    -------
    argparse.ArgumentParser
        A :class:`Parser`; ``parse_args`` gives a namespace whose ``run(args)`` runs the
        subcommand.

    Examples
    --------
    >>> args = build_parser().parse_args(["reproduce", "--quick"])
    >>> args.command, args.quick
    ('reproduce', True)
    >>> import sys
    >>> _ = build_parser(["verify"])
    >>> "qtheory.verify.command" in sys.modules
    True
    """
    parser = Parser(
        prog="qtheory",
        description="Executable, verifiable queueing theory: formulas, exact solvers, "
        "simulation, LaTeX tables and figures.",
    )
    parser.add_argument("--version", action=_Version, help="print the version of qtheory and exit")
    parser.add_argument(
        "--print-completion",
        action=_PrintCompletion,
        choices=COMPLETION_SHELLS,
        metavar="{" + ",".join(COMPLETION_SHELLS) + "}",
        help="print a shell completion script for qtheory and exit "
        '(bash: eval "$(qtheory --print-completion bash)")',
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name, (module, summary) in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=summary)
        if commands is None or name in commands:
            importlib.import_module(module).register(subparser)
            _name_errors(subparser)
    return parser


class _Version(argparse.Action):
    """``--version``: print ``qtheory VERSION`` and exit 0.  The version is looked up
    only when asked for (:mod:`importlib.metadata` is not imported otherwise)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import qtheory

        print(f"qtheory {qtheory.__version__}")
        parser.exit(0)


class _PrintCompletion(argparse.Action):
    """``--print-completion SHELL``: print shtab's completion script of the whole
    ``qtheory`` parser (every subcommand's options, so all of them are registered
    here) and exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import shtab

        print(shtab.complete(build_parser(), shell=str(values)), end="")
        parser.exit(0)


def _name_errors(parser: argparse.ArgumentParser) -> None:
    """Give every (sub)command parser the default ``where`` = its words
    (``qtheory table walks``), which :func:`main` puts in front of an error."""
    parser.set_defaults(where=parser.prog)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _name_errors(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``qtheory`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 success, 2 invalid input, 1 a numerical method gave up (or
        memory or a file write failed), 130 interrupted; see the module docstring.  Usage
        errors and ``--help`` return their status instead of raising ``SystemExit``.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     status = main(["lossnet", "online", "--servers", "0", "--lambda-h", "0.6",
    ...                    "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1"])
    >>> status, "servers" in err.getvalue(), err.getvalue().count("\\n")
    (2, True, 1)
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(argv[:1]).parse_args(argv)
    except SystemExit as exit:  # --help (0) or a usage error (2), already printed
        return _exit_status(exit.code)
    where = getattr(args, "where", f"qtheory {args.command}")
    try:
        return args.run(args)
    except (ValueError, TypeError, OverflowError) as error:  # bad input
        return _fail(f"{where}: error: {_one_line(error)}", 2)
    except (ArithmeticError, RuntimeError) as error:  # a numerical method gave up
        return _fail(f"{where}: numerical failure: {_one_line(error)}", 1)
    except MemoryError:
        return _fail(f"{where}: not enough memory for this size", 1)
    except OSError as error:  # e.g. a full disk while writing outputs
        return _fail(f"{where}: error: {_one_line(error)}", 1)
    except KeyboardInterrupt:
        return _fail(f"{where}: interrupted", 130)


def _fail(line: str, status: int) -> int:
    print(line, file=sys.stderr)
    return status


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` would give: None is 0, an int itself, else 1 (a
    message, printed here)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _one_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
