"""minerva_math500's sympy ``is_equiv`` with sympy's lark LaTeX parser against its own antlr one.

``thinkbench compare`` runs minerva's grader with ``parse_latex(..., backend="lark")`` because
its antlr parser needs antlr4-python3-runtime 4.11 and this project needs 4.13. This script
measures what that changes on real answers: the pairs minerva compares on the real responses
in ``../shared/data`` (Sky-T1 27B and Qwen2.5-Math-7B on MATH-500): its normalised
``Final Answer: ...`` sentence (``[invalidanswer]`` when there is none) and, so that sympy is
exercised on every response, the normalised last ``\\boxed{}`` of the response, each against
the normalised gold (the same function, ``normalize_final_answer``, on both).

The antlr verdicts come from a second interpreter where antlr 4.11 is installed (any venv with
``sympy`` and ``antlr4-python3-runtime==4.11.*``; math-verify is not needed there and is
stubbed): ``--antlr-python /path/to/venv/bin/python``. Prints how many pairs each parser
parses, the verdicts that differ, and the pairs where they differ.

    python benchmarks/minerva_lark.py --antlr-python /tmp/antlr411/bin/python
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = (
    DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl",
    DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl",
)


def load_minerva(utils: Path, backend: str) -> types.ModuleType:
    """minerva's utils.py; with ``lark``, as thinkbench compare loads it."""
    if backend == "lark":
        from lm_eval_thinkbench.compare.lm_eval_graders import minerva

        return minerva()
    sys.modules.setdefault("math_verify", types.SimpleNamespace(parse=None, verify=None))  # type: ignore[arg-type]
    spec = importlib.util.spec_from_file_location("minerva_utils", utils)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pairs(module: types.ModuleType) -> list[tuple[str, str, str]]:
    """(kind, answer, gold) over every real response."""
    docs = [json.loads(line) for line in (DATA / "math500" / "test.jsonl").open()]
    out = []
    for path in FILES:
        for line in path.open():
            record = json.loads(line)
            code = record["code"]
            text = (code if isinstance(code, list) else ast.literal_eval(code))[0]
            solution = docs[int(record["idx"])]["solution"]
            gold = module.normalize_final_answer(
                module.remove_boxed(module.last_boxed_only_string(solution))
            )
            sentence = module.normalize_final_answer(module.get_unnormalized_answer(text))
            out.append(("sentence", sentence, gold))
            boxed = module.last_boxed_only_string(text)
            if boxed:
                with contextlib.suppress(AssertionError):  # a box remove_boxed refuses
                    answer = module.normalize_final_answer(module.remove_boxed(boxed))
                    out.append(("boxed", answer, gold))
    return out


def verdicts(module: types.ModuleType, todo: list[tuple[str, str, str]]) -> list[list[object]]:
    """Per pair: [is_equiv, does parse_latex read the answer, does it read the gold]."""
    out = []
    for _, answer, gold in todo:
        readable = []
        for text in (answer, gold):
            try:
                module.parse_latex(text)
                readable.append(True)
            except Exception:
                readable.append(False)
        out.append([bool(module.is_equiv(answer, gold)), *readable])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--antlr-python", help="an interpreter with antlr 4.11 (see above)")
    parser.add_argument("--worker", nargs=2, metavar=("UTILS", "PAIRS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:  # inside the antlr 4.11 interpreter
        module = load_minerva(Path(args.worker[0]), "antlr")
        todo = [tuple(p) for p in json.loads(Path(args.worker[1]).read_text())]
        json.dump(verdicts(module, todo), sys.stdout)  # type: ignore[arg-type]
        return
    from lm_eval_thinkbench.compare.lm_eval_graders import task_folder

    utils = task_folder("minerva_math") / "utils.py"
    lark = load_minerva(utils, "lark")
    todo = pairs(lark)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(todo, f)
    mine = verdicts(lark, todo)
    if not args.antlr_python:
        print(f"{len(todo)} pairs; lark equivalent: {sum(v[0] for v in mine)}")
        return
    proc = subprocess.run(
        [args.antlr_python, __file__, "--worker", str(utils), f.name],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    theirs = json.loads(proc.stdout)
    for kind in ("sentence", "boxed"):
        idx = [i for i, p in enumerate(todo) if p[0] == kind]
        both = [i for i in idx if mine[i][1] and mine[i][2] and theirs[i][1] and theirs[i][2]]
        differ = [i for i in idx if mine[i][0] != theirs[i][0]]
        differ_both = [i for i in both if mine[i][0] != theirs[i][0]]
        print(
            f"{kind}: {len(idx)} pairs; equivalent lark {sum(mine[i][0] for i in idx)}, "
            f"antlr {sum(theirs[i][0] for i in idx)}; answer readable lark "
            f"{sum(mine[i][1] for i in idx)}, antlr {sum(theirs[i][1] for i in idx)}; both "
            f"parsers read both sides: {len(both)}, verdicts differ there: {len(differ_both)}; "
            f"verdicts differ overall: {len(differ)}"
        )
        for i in differ:
            print(f"  {todo[i][1]!r} vs {todo[i][2]!r}: lark {mine[i]}, antlr {theirs[i]}")


if __name__ == "__main__":
    main()
