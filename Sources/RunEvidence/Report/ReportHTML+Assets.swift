extension ReportHTML {
    /// The page's style sheet; the colours are CSS variables set from the palette.
    static let style = """
    body{background:var(--bg);color:var(--text);font:13px/1.45 "DejaVu Sans Mono",ui-monospace,monospace;margin:16px 20px}
    h1,h2,h3{color:var(--title);font-weight:bold;margin:18px 0 6px}
    h1{font-size:18px}h2{font-size:16px;border-bottom:1px solid var(--border)}h3{font-size:14px}
    .note,.dim{color:var(--dim)}
    nav a{color:var(--title);margin-right:14px}
    table{border-collapse:collapse;margin:4px 0 10px}
    th{color:var(--title);text-align:right;padding:2px 10px;border-bottom:1px solid var(--border)}
    td{text-align:right;padding:1px 10px;white-space:nowrap}
    .l{text-align:left}td.url{max-width:640px;overflow:hidden;text-overflow:ellipsis}
    .bad,.slower{color:var(--error)}.faster{color:var(--p-receive)}
    .legend span{margin-right:14px;white-space:nowrap}
    .legend i{display:inline-block;width:8px;height:8px;border:1px solid var(--border);margin-right:4px;opacity:.75}
    #zoom{margin:6px 0}#zoom input{width:90px;background:var(--bg);color:var(--text);border:1px solid var(--border)}
    #zoom button{background:var(--bg);color:var(--title);border:1px solid var(--border)}
    .wf .row{display:flex;align-items:center;height:15px}
    .wf .label{flex:none;width:420px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;padding-right:8px}
    .wf .dur{flex:none;width:76px;text-align:right}
    .wf .track{position:relative;flex:1;height:11px;overflow:hidden;background:rgba(127,127,127,.08)}
    .wf .lane{position:absolute;top:0;bottom:0;left:calc(var(--shift,0)*-100%);width:calc(var(--scale,1)*100%)}
    .wf .seg{position:absolute;top:0;bottom:0;min-width:1px}
    .wf .axis{height:18px;color:var(--dim)}
    .wf .axis .track{height:16px;background:none;overflow:hidden;cursor:crosshair}
    .wf .tick{position:absolute;top:0;padding-left:3px;border-left:1px solid var(--border);white-space:nowrap}
    .wf details>summary{cursor:pointer;height:15px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
    .wf details .label{padding-left:16px;width:404px}
    .wf .slow>summary,.wf .row.slow .label{color:var(--title)}
    .hists{display:flex;flex-wrap:wrap;gap:4px 18px}
    figure{margin:0}figcaption{color:var(--dim);font-size:12px}
    svg.hist{display:block;background:rgba(127,127,127,.08)}
    """

    /// Zoom by time range: `#t=FROM-TO` (milliseconds from the run's start) in the address,
    /// set by the form or by dragging across the time axis, so a zoomed view can be linked
    /// and reloaded. Only CSS variables and text change: the rows are not redrawn.
    static let script = """
    (function(){
    var wf=document.getElementById('waterfall');if(!wf)return;
    var span=parseFloat(wf.getAttribute('data-span'))||0;
    var from=document.getElementById('zoom-from'),to=document.getElementById('zoom-to');
    var ticks=wf.querySelectorAll('.axis .tick');
    function fmt(ms){return ms<10?ms.toFixed(2)+'ms':ms<10000?ms.toFixed(0)+'ms':(ms/1000).toFixed(2)+'s';}
    function apply(a,b){
    if(!(isFinite(a)&&isFinite(b)&&b>a)){a=0;b=span;}
    a=Math.max(0,Math.min(a,span));b=Math.max(a,Math.min(b,span));
    if(!(b>a)){a=0;b=span;}
    var w=b-a||1;
    wf.style.setProperty('--scale',String(span/w));wf.style.setProperty('--shift',String(a/w));
    for(var i=0;i<ticks.length;i++){ticks[i].textContent=fmt(a+w*parseFloat(ticks[i].getAttribute('data-f')));}
    from.value=a.toFixed(1);to.value=b.toFixed(1);
    wf.setAttribute('data-from',a.toFixed(1));wf.setAttribute('data-to',b.toFixed(1));
    }
    function fromHash(){var m=/^#t=([0-9.]+)-([0-9.]+)$/.exec(location.hash);if(m)apply(parseFloat(m[1]),parseFloat(m[2]));else apply(0,span);}
    document.getElementById('zoom').addEventListener('submit',function(e){e.preventDefault();location.hash='t='+from.value+'-'+to.value;});
    document.getElementById('zoom-reset').addEventListener('click',function(){location.hash='all';});
    var axis=wf.querySelector('.axis .track'),down=null;
    function at(e){var r=axis.getBoundingClientRect(),a=parseFloat(wf.getAttribute('data-from')),b=parseFloat(wf.getAttribute('data-to'));
    return a+(b-a)*Math.max(0,Math.min(1,(e.clientX-r.left)/r.width));}
    axis.addEventListener('mousedown',function(e){down=at(e);e.preventDefault();});
    window.addEventListener('mouseup',function(e){if(down===null)return;var u=at(e),a=Math.min(down,u),b=Math.max(down,u);down=null;
    if(b-a>0)location.hash='t='+a.toFixed(3)+'-'+b.toFixed(3);});
    window.addEventListener('hashchange',fromHash);fromHash();
    })();
    """
}
