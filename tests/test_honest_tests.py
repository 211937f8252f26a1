"""Tests that can fail: a scan of every Python file under tests/ for checks that hold for any value.

It flags an ``assert`` that no value can fail (``assert True``, ``assert x or True``, ``assert (x, "msg")``,
``assert x == x``, a literal compared with a literal, ``isinstance(x, object)``, ``len(x) >= 0``, a duration or
count ``>= 0``), a test skipped unconditionally, and every sleep: a sleep standing in for "long enough" makes a
test flaky on a loaded machine (wait on an event, a barrier, or :func:`tests.waiting.wait_until`). A sleep that
is not synchronisation (simulated work, by design) is allowed where its line says why:
``# sleep: <the reason>``.
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: A reason at a sleep's line: ``# sleep: `` and at least three words.
SLEEP_REASON = re.compile(r"#\s*sleep:\s*(\S+\s+){2,}\S+")
#: Names of values that cannot be negative: ``x >= 0`` on them holds for any value.
NON_NEGATIVE = re.compile(r"(^|_)(seconds?|time|duration|elapsed|wall|count|counts|len|length|size|total)s?($|_)"
                          r"|^n_|^n$")
ALWAYS_NON_NEGATIVE_CALLS = {"len", "abs"}


def literal(node):
    """Whether ``node`` is a constant or a display of constants (a value known without running anything)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and literal(k) and literal(v) for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        return literal(node.operand)
    return False


def truth(node):
    """True or False where the value of expression ``node`` is known to be truthy or falsy whatever runs, else
    None."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return bool(node.elts if not isinstance(node, ast.Dict) else node.keys)
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.JoinedStr):
        return True if any(isinstance(v, ast.Constant) and v.value for v in node.values) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [truth(v) for v in node.values]
        if isinstance(node.op, ast.Or):
            return True if True in values else (False if all(v is False for v in values) else None)
        return False if False in values else (True if all(v is True for v in values) else None)
    return None


def value_name(node):
    """The name a value goes by: ``x``, ``obj.x``, ``d["x"]``, ``f(...)`` all give ``x`` / ``f``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    if isinstance(node, ast.Call):
        return value_name(node.func)
    return ""


def never_negative(node):
    """Whether ``node`` is a value that cannot be below 0: ``len(...)``, ``abs(...)``, or named as a count or
    duration."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ALWAYS_NON_NEGATIVE_CALLS:
        return True
    return bool(NON_NEGATIVE.search(value_name(node).lower()))


def is_zero(node):
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 0


def vacuous_comparison(node):
    """Why comparison ``node`` holds for any value, or None."""
    operands = [node.left, *node.comparators]
    for left, op, right in zip(operands, node.ops, operands[1:]):
        if literal(left) and literal(right):
            return "a literal compared with a literal"
        if isinstance(left, ast.Name) and isinstance(right, ast.Name) and left.id == right.id \
                and isinstance(op, (ast.Eq, ast.Is, ast.LtE, ast.GtE)):
            return "a value compared with itself"  # an attribute or a call, evaluated twice, may differ
        if isinstance(op, ast.GtE) and is_zero(right) and never_negative(left) \
                or isinstance(op, ast.LtE) and is_zero(left) and never_negative(right):
            return f"{ast.unparse(left if is_zero(right) else right)} >= 0 holds for any count or duration"
    return None


def vacuous(test):
    """Why an ``assert``'s expression ``test`` holds for any value, or None."""
    known = truth(test)
    if known is True:
        return "always true"
    if isinstance(test, ast.Compare):
        return vacuous_comparison(test)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2:
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        if any(isinstance(k, ast.Name) and k.id == "object" for k in kinds):
            return "isinstance(..., object) holds for any value"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):  # a part that cannot fail checks nothing
        return next((why for why in map(vacuous, test.values) if why), None)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in {"all", "any"} \
            and len(test.args) == 1 and isinstance(test.args[0], (ast.GeneratorExp, ast.ListComp)):
        return vacuous(test.args[0].elt)
    return None


def dotted(node):
    """``a.b.c`` for an attribute chain, else ''."""
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return node.id if isinstance(node, ast.Name) else ""


def is_skip_call(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
        and dotted(node.value.func) in {"pytest.skip", "pytest.xfail"}


def unconditional_skips(tree):
    """``(line, why)`` of each test that skips itself whatever happens."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test"):
            continue
        for decorator in node.decorator_list:
            call = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = dotted(call)
            condition = decorator.args[0] if isinstance(decorator, ast.Call) and decorator.args else None
            if name in {"pytest.mark.skip", "pytest.mark.xfail"} and condition is None \
                    or name in {"pytest.mark.skipif", "pytest.mark.xfail"} and condition is not None \
                    and truth(condition) is True:
                yield decorator.lineno, f"{node.name} is skipped whatever happens ({name})"
        for statement in node.body:
            if is_skip_call(statement):
                yield statement.lineno, f"{node.name} skips itself whatever happens"


def sleep_names(tree):
    """The names under which ``time.sleep`` (or asyncio's) is reachable in a module: ``time.sleep`` and any
    ``from time import sleep``."""
    names = {"time.sleep", "asyncio.sleep"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in {"time", "asyncio"}:
            names |= {alias.asname or alias.name for alias in node.names if alias.name == "sleep"}
    return names


def sleeps(tree):
    """``(line, in a string)`` where a sleep is used (called or passed on), or code in a string calls one."""
    names = sleep_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(getattr(node, "ctx", None), ast.Load) \
                and dotted(node) in names:
            yield node.lineno, False
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "sleep(" in node.value:
            yield node.lineno, True  # code run in a subprocess


def comment_lines(source):
    """``{line: comment text}`` of a module's comments."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {tok.start[0]: tok.string for tok in tokens if tok.type == tokenize.COMMENT}


def findings(source, filename="<test>", scan_strings=True):
    """``file:line: why`` for every check in ``source`` that holds for any value, and every sleep without a
    reason at its line (a ``# sleep:`` comment that names no sleep is one too)."""
    tree = ast.parse(source, filename)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            why = vacuous(node.test)
            if why:
                found.append((node.lineno, f"assert {ast.unparse(node.test)[:80]}: {why}"))
    found += list(unconditional_skips(tree))
    comments = comment_lines(source)
    sleep_lines = {line for line, in_string in sleeps(tree) if scan_strings or not in_string}
    for line in sorted(sleep_lines):
        if not SLEEP_REASON.search(comments.get(line, "")):
            found.append((line, "a sleep: wait on a real condition, or say at the line why it is not "
                                "synchronisation (# sleep: <reason>)"))
    for line, text in comments.items():
        if re.match(r"#\s*sleep:", text) and line not in sleep_lines:
            found.append((line, "a '# sleep:' reason at a line without a sleep"))
    return [f"{filename}:{line}: {why}" for line, why in sorted(found)]


def test_no_test_asserts_what_holds_for_any_value_or_sleeps_to_synchronise():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        name = str(path.relative_to(ROOT))
        # this file's own examples below hold the patterns in strings; its code is scanned all the same
        found += findings(path.read_text(), name, scan_strings=path != Path(__file__).resolve())
    assert not found, "checks that cannot fail, or sleeps:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    "assert True",
    "assert 1",
    "assert x or True",
    "assert (x == 1, 'x is one')",
    "assert [x]",
    "assert f'{x} is set'",
    "assert not None",
    "assert x == x",
    "assert x <= x",
    "assert 1 == 1",
    "assert (1, 2) != (2, 1)",
    "assert isinstance(x, object)",
    "assert isinstance(x, (int, object))",
    "assert len(rows) >= 0",
    "assert 0 <= len(rows)",
    "assert abs(d) >= 0",
    "assert seconds >= 0",
    "assert p['seconds'] >= 0.0",
    "assert model.n_features >= 0",
    "assert result.wall_time >= 0",
    "assert len(x) >= 0 and True",
    "assert x == 1 and len(x) >= 0",
    "assert all(p.height == 2 and p['seconds'] >= 0 for p in passes)",
    "assert any([x.n_rows >= 0 for x in parts])",
    "def test_a():\n    pytest.skip('later')\n    assert f() == 2",
    "def test_a():\n    '''Doc.'''\n    pytest.skip('later')",
    "@pytest.mark.skip\ndef test_a():\n    assert f() == 2",
    "@pytest.mark.skip(reason='later')\ndef test_a():\n    assert f() == 2",
    "@pytest.mark.skipif(True, reason='later')\ndef test_a():\n    assert f() == 2",
    "import time\ntime.sleep(0.1)",
    "from time import sleep\nsleep(0.1)",
    "from time import sleep as pause\npause(0.1)",
    "import time\npool.map(time.sleep, [0.1])",
    "import time\ntime.sleep(0.1)  # sleep: because",
    "import time\ntime.sleep(0.1)\n# sleep: a reason at another line",
    "code = 'import time; time.sleep(1)'",
])
def test_the_scan_finds_each_kind_of_check_that_cannot_fail(source):
    assert findings(source), source


@pytest.mark.parametrize("source", [
    "assert x",
    "assert x or y",
    "assert (x == 1), 'x is one'",
    "assert x == y",
    "assert x and y",
    "assert fit.constants is fit.constants",  # a cached property: a plain one makes a new value each time
    "assert all(p.height == 2 and p['seconds'] > 0 for p in passes)",
    "assert x >= 0",  # a value that may be negative (a difference, a log-likelihood)
    "assert seconds > 0",
    "assert len(rows) >= 1",
    "assert isinstance(x, int)",
    "assert f(1) == 1",
    "def test_a():\n    if not ready:\n        pytest.skip('not ready')",
    "@pytest.mark.skipif(sys.platform == 'win32', reason='POSIX')\ndef test_a():\n    assert f() == 2",
    "import time\ntime.sleep(0.1)  # sleep: a simulated slow worker, by design",
    "import time\nstart = time.monotonic()",
])
def test_the_scan_passes_checks_that_can_fail(source):
    assert findings(source) == []
