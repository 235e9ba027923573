"""A histogram of final scores as a small standalone SVG."""
from __future__ import annotations

from html import escape  # quotes too: a name never leaves its attribute or its text


def histogram_svg(series: dict[str, list[int] | dict[int, float]], title: str, bin_width: int = 10,
                  y_label: str = "share of games", x_label: str = "final score") -> str:
    """One bar chart per player, overlaid with transparency; x: score, y: share of games (labels as given).

    A series is the scores of games (a list), or an exact distribution (a dict: score -> probability)."""
    values = [v for vs in series.values() for v in vs]
    lo = (min(values) // bin_width) * bin_width if values else 0
    hi = (max(values) // bin_width + 1) * bin_width if values else bin_width
    bins = max(1, (hi - lo) // bin_width)
    W, H, left, bottom, top = 760, 360, 60, 40, 40
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    shares = {}
    for name, vs in series.items():
        counts = [0.0] * bins
        weighted = isinstance(vs, dict)
        for v in vs:
            counts[min(bins - 1, (v - lo) // bin_width)] += vs[v] if weighted else 1
        shares[name] = counts if weighted else [c / max(1, len(vs)) for c in counts]
    peak = max((s for sh in shares.values() for s in sh), default=1) or 1
    bw = (W - left - 20) / bins
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
             f'role="img" aria-label="{escape(title)}">',
             f'<title>{escape(title)}</title><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{W / 2}" y="24" text-anchor="middle" font-family="sans-serif" font-size="16">{escape(title)}</text>']
    plot_h = H - top - bottom
    for i, (name, sh) in enumerate(shares.items()):
        colour = colours[i % len(colours)]
        for b, s in enumerate(sh):
            if s:
                h = s / peak * plot_h
                parts.append(f'<rect x="{left + b * bw:.1f}" y="{top + plot_h - h:.1f}" width="{bw - 1:.1f}" '
                             f'height="{h:.1f}" fill="{colour}" fill-opacity="0.55"/>')
        parts.append(f'<rect x="{W - 200}" y="{top + 18 * i}" width="12" height="12" fill="{colour}"/>'
                     f'<text x="{W - 182}" y="{top + 10 + 18 * i}" font-family="sans-serif" font-size="12">{escape(name)}</text>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{W - 20}" y2="{top + plot_h}" stroke="black"/>')
    step = max(1, bins // 10)
    for b in range(0, bins + 1, step):
        x = left + b * bw
        parts.append(f'<text x="{x:.1f}" y="{H - 20}" text-anchor="middle" font-family="sans-serif" font-size="11">{lo + b * bin_width}</text>')
    parts.append(f'<text x="14" y="{top + plot_h / 2}" font-family="sans-serif" font-size="11" '
                 f'transform="rotate(-90 14 {top + plot_h / 2})" text-anchor="middle">{escape(y_label)}</text>')
    parts.append(f'<text x="{left + (W - left - 20) / 2}" y="{H - 4}" text-anchor="middle" font-family="sans-serif" '
                 f'font-size="11">{escape(x_label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
