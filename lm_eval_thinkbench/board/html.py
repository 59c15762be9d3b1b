"""``index.html``: the board as one self-contained static page (no server, no network).

Everything the page needs is inline: CSS, the script, the table's data, the SVG plots. The
only other files it reads are the per-sample trace chunks (``traces/<n>.js``, see
``traces.py``), loaded with a ``<script>`` element when a sample is opened, which works from
``file://`` where ``fetch`` does not. Model text is only ever set as ``textContent``, never
parsed as HTML or run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from lm_eval_thinkbench.board.plots import levels_svg, scatter_svg
from lm_eval_thinkbench.board.table import Board, format_cell
from lm_eval_thinkbench.board.traces import CALLBACK

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}
th{background:#f3f3f3;cursor:pointer;user-select:none}
th .set{display:block;font-weight:normal;font-size:11px;color:#666}
th.harness{background:#eef3fb} th.sorted{background:#ffe9a8}
td:first-child,th:first-child{text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:12px}
svg.plot{border:1px solid #ddd;background:#fff;font-size:11px}
svg .axis{stroke:#444} svg .title{font-weight:bold} svg .tick{fill:#555;font-size:10px}
#sample-list{max-height:320px;overflow:auto;display:inline-block}
#samples tbody tr{cursor:pointer} #samples tbody tr:hover{background:#f6f6f6}
.right{color:#1a7f37} .wrong{color:#c62828}
#trace .step{border-left:3px solid #ddd;margin:4px 0;padding:2px 8px;white-space:pre-wrap}
#trace .step.first-correct{border-left-color:#1a7f37;background:#e6f4ea}
#trace .step.reflection{background:#f1f1f1;color:#555}
#trace mark.switch{background:#ffd54f}
#trace blockquote{border-left:4px solid #1a7f37;margin:6px 0;padding:4px 10px;background:#f4fbf6}
.answer{white-space:pre-wrap;border:1px dashed #999;padding:4px 8px}
"""

SCRIPT = r"""
(function(){
const board = JSON.parse(document.getElementById('board-data').textContent);
const index = JSON.parse(document.getElementById('trace-index').textContent);
const table = document.getElementById('board');
let sortKey = board.sort, sortDesc = null;
function sortBy(key, desc){
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = a.querySelector('td[data-key="'+key+'"]').dataset.value;
    const y = b.querySelector('td[data-key="'+key+'"]').dataset.value;
    if (x === '' && y === '') return 0;
    if (x === '') return 1;
    if (y === '') return -1;
    return desc ? Number(y) - Number(x) : Number(x) - Number(y);
  });
  rows.forEach(r => body.appendChild(r));
  table.querySelectorAll('th').forEach(th => th.classList.toggle('sorted', th.dataset.key === key));
  sortKey = key; sortDesc = desc;
}
if (sortKey) {  // rows come sorted by --sort: mark its column, best first
  const th = table.querySelector('th[data-key="' + sortKey + '"]');
  if (th) { th.classList.add('sorted'); sortDesc = board.descending; }
}
table.querySelectorAll('th[data-key]').forEach(th => th.addEventListener('click', () => {
  const key = th.dataset.key;
  const best = th.dataset.better === '1';
  sortBy(key, key === sortKey && sortDesc !== null ? !sortDesc : best);
}));
const list = document.getElementById('samples');
const pick = document.getElementById('trace-model');
function showList(){
  const body = list.tBodies[0];
  body.textContent = '';
  index.filter(r => r.model === pick.value).forEach(r => {
    const tr = body.insertRow();
    tr.dataset.n = r.n;
    [r.id + (r.repeat ? '#' + r.repeat : ''), r.task, r.subset, r.correct ? 'right' : 'wrong',
     r.reasoning_tokens, r.first_correct_tokens === null ? '–' : r.first_correct_tokens
    ].forEach((v, i) => { const td = tr.insertCell(); td.textContent = v;
      if (i === 3) td.className = r.correct ? 'right' : 'wrong'; });
    tr.addEventListener('click', () => openTrace(r.n));
  });
}
if (pick) { pick.addEventListener('change', showList); showList(); }
const loaded = {};
window.__CALLBACK__ = function(n, data){ loaded[n] = data; render(data); };
function openTrace(n){
  if (loaded[n]) { render(loaded[n]); return; }
  const s = document.createElement('script');
  s.src = 'traces/' + n + '.js';
  s.onerror = () => {
    document.getElementById('trace').textContent = 'trace file missing: ' + s.src;
  };
  document.head.appendChild(s);
}
window.openTrace = openTrace;
function el(tag, cls, text){ const e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text; return e; }
function render(d){
  const out = document.getElementById('trace');
  out.textContent = '';
  out.dataset.n = d.model + '|' + d.id + '|' + d.repeat;
  out.appendChild(el('h3', '', d.model + ' · ' + d.task + ' · ' + d.id));
  const v = el('p', 'verdict ' + (d.correct ? 'right' : 'wrong'),
    (d.correct ? 'Correct' : 'Wrong') + ': extracted ' + JSON.stringify(d.extracted) +
    ', gold ' + JSON.stringify(d.gold) + (d.truncated ? ' (truncated)' : ''));
  out.appendChild(v);
  const f = d.figures;
  out.appendChild(el('p', 'figures', 'reasoning tokens ' + f.reasoning_tokens +
    ', first-correct tokens ' + f.first_correct_tokens + ', token efficiency ' +
    (f.token_efficiency === null ? '–' : Number(f.token_efficiency).toFixed(3)) +
    ', switches ' + f.thought_num + ', steps ' + d.steps.length + ' (markers: ' + d.markers + ')'));
  const problem = out.appendChild(el('details', 'problem'));
  problem.appendChild(el('summary', '', 'Problem'));
  problem.appendChild(el('p', '', d.problem));
  if (d.first_correct_step !== null) {
    out.appendChild(el('p', '', 'First correct at step ' + (d.first_correct_step + 1) + ':'));
    out.appendChild(el('blockquote', 'quote', d.first_correct_quote || ''));
  } else {
    out.appendChild(el('p', 'quote-none', 'No step of the reasoning commits to the gold.'));
  }
  const sw = d.switches; let k = 0;
  const frag = document.createDocumentFragment();
  d.steps.forEach((span, i) => {
    const [a, b] = span;
    const div = el('div', 'step');
    div.dataset.step = i;
    if (i === d.first_correct_step) div.classList.add('first-correct');
    if (d.reflection_start !== null && a >= d.reflection_start) div.classList.add('reflection');
    let at = a;
    while (k < sw.length && sw[k][1] <= a) k++;
    for (let j = k; j < sw.length && sw[j][0] < b; j++) {
      const s = Math.max(sw[j][0], a), e = Math.min(sw[j][1], b);
      if (s > at) div.appendChild(document.createTextNode(d.reasoning.slice(at, s)));
      div.appendChild(el('mark', 'switch', d.reasoning.slice(s, e)));
      at = e;
    }
    if (at < b) div.appendChild(document.createTextNode(d.reasoning.slice(at, b)));
    frag.appendChild(div);
  });
  out.appendChild(frag);
  if (d.answer) {
    out.appendChild(el('h4', '', 'Answer'));
    out.appendChild(el('div', 'answer', d.answer));
  }
}
})();
""".replace("__CALLBACK__", CALLBACK)


def page(
    board: Board, index: Sequence[dict[str, Any]], title: str = "thinkbench leaderboard"
) -> str:
    models = board.models
    head = ['<th data-key="model">model</th>']
    for c in board.columns:
        cls = "" if c.ours else ' class="harness"'
        head.append(
            f'<th data-key="{escape(c.key)}" data-better="{int(c.higher_is_better)}"{cls}>'
            f'<span class="set">{escape(c.set)}</span>{escape(c.label)}'
            f"{' ↑' if c.higher_is_better else ' ↓'}</th>"
        )
    rows = []
    for m in models:
        cells = [f"<td>{escape(m)}</td>"]
        for c in board.columns:
            cell = board.cells.get((m, c.key))
            value = "" if cell is None else repr(cell.value)
            cells.append(
                f'<td data-key="{escape(c.key)}" data-value="{value}">'
                f"{escape(format_cell(c, cell))}</td>"
            )
        rows.append(f'<tr data-model="{escape(m)}">' + "".join(cells) + "</tr>")
    plots = [scatter_svg(board.figures, models), *levels_svg(board.figures, models)]
    data = {
        "sort": board.sort,
        "descending": board.descending,
        "models": models,
        "columns": [c.key for c in board.columns],
    }
    trace_models = list(dict.fromkeys(r["model"] for r in index))
    options = "".join(f"<option>{escape(m)}</option>" for m in trace_models)
    traces = (
        "<p>Pick a model, then a sample: its reasoning split into steps, the first-correct "
        "step highlighted and quoted, switch phrases marked, the reflection after it shaded."
        f'</p><select id="trace-model">{options}</select>'
        '<div id="sample-list"><table id="samples"><thead><tr><th>id</th><th>task</th>'
        "<th>subset</th><th>verdict"
        "</th><th>reasoning tokens</th><th>first-correct tokens</th></tr></thead><tbody>"
        '</tbody></table></div><div id="trace"></div>'
        if index
        else "<p>No samples logged in these runs.</p>"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{CSS}</style></head><body>
<h1>{escape(title)}</h1>
<p>One row per model. Click a column to sort (again to reverse); ↑ higher is better, ↓ lower.
Cells: mean [95% interval]. Blue headers are standard harness tasks.</p>
<table id="board"><thead><tr>{"".join(head)}</tr></thead><tbody>{"".join(rows)}</tbody></table>
<h2>Plots</h2><div class="plots">{"".join(p for p in plots if p)}</div>
<h2>Traces</h2>{traces}
<script type="application/json" id="board-data">{_json(data)}</script>
<script type="application/json" id="trace-index">{_json(list(index))}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def _json(value: object) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` can close it)."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")
