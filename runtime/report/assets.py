"""The page's inline style and script (the page loads nothing from anywhere)."""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{padding:12px 20px;background:#24292f;color:#fff}
header h1{font-size:18px;margin:0}
header p{margin:4px 0 0;color:#c9d1d9;font-size:13px}
main{padding:12px 20px}
h2{font-size:15px;margin:18px 0 6px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.pane{background:#fff;border:1px solid #d0d7de;border-radius:6px;max-height:480px;overflow:auto}
.pane h3{position:sticky;top:0;margin:0;padding:4px 8px;font-size:12px;background:#f6f8fa;
  border-bottom:1px solid #d0d7de;z-index:1}
.code{font:12px/1.5 ui-monospace,Menlo,Consolas,monospace;white-space:pre;padding:4px 0}
.ln{display:block;padding:0 8px;cursor:default}
.ln[data-line],.op[data-line],.op[data-op]{cursor:pointer}
.ln .no{display:inline-block;width:3.5em;color:#8c959f;user-select:none}
.ln:hover,.op:hover{background:#f3f4f6}
.hl{background:#fff3bf !important}
.sel{background:#ffd43b !important}
.graph{font:12px/1.6 ui-monospace,Menlo,Consolas,monospace;padding:2px 8px}
.graph .graph{border-left:2px solid #d0d7de;margin-left:6px}
.ghead{color:#57606a}
.op{white-space:pre-wrap;padding-left:12px}
summary.op{padding-left:0;list-style:none}
summary.op::-webkit-details-marker{display:none}
.fold{display:inline-block;width:12px;color:#57606a;cursor:pointer;user-select:none}
.fold::before{content:'\\25BE'}
details:not([open])>summary .fold::before{content:'\\25B8'}
.ret{padding-left:12px;color:#57606a}
.type{color:#8250df;font-weight:600}
.ty{color:#0a3069}
.attrs{color:#6e7781}
.const{color:#953800}
.ref{color:#0550ae;text-decoration:none}
.ref.captured{color:#1a7f37}
.badge{display:inline-block;margin-left:6px;padding:0 5px;border-radius:8px;font-size:10px;
  font-family:system-ui,sans-serif;vertical-align:1px}
.badge.out{background:#dafbe1;color:#116329}
.badge.cap{background:#ddf4ff;color:#0969da}
.badge.var{background:#fbefff;color:#8250df}
table.traces{border-collapse:collapse;background:#fff}
table.traces td,table.traces th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;
  font-size:13px}
.note{color:#57606a;font-style:italic;padding:6px 8px}
"""

SCRIPT = """
(function(){
  function keyOf(el){
    return {line: el.getAttribute('data-line'), op: el.getAttribute('data-op')};
  }
  function select(el){
    document.querySelectorAll('.hl,.sel').forEach(function(e){
      e.classList.remove('hl'); e.classList.remove('sel');});
    var k = keyOf(el), found = [];
    if (k.line) found = found.concat(Array.from(
      document.querySelectorAll('[data-line="' + k.line + '"]')));
    if (k.op) found = found.concat(Array.from(
      document.querySelectorAll('[data-op="' + k.op + '"]')));
    found.forEach(function(e){ e.classList.add('hl'); });
    el.classList.add('sel');
    var panes = new Set();
    found.forEach(function(e){
      var pane = e.closest('.pane');
      if (pane && pane !== el.closest('.pane') && !panes.has(pane)) {
        panes.add(pane);
        pane.scrollTop = e.offsetTop - pane.offsetTop - pane.clientHeight / 3;
      }
    });
    return found.length;
  }
  document.addEventListener('click', function(ev){
    var el = ev.target.closest('[data-line],[data-op]');
    if (!el || ev.target.closest('a.ref')) return;
    if (el.tagName === 'SUMMARY') {
      if (ev.target.closest('.fold')) return;  // the arrow folds and unfolds the body
      ev.preventDefault();
    }
    select(el);
  });
  window.reportSelect = select;
})();
"""
