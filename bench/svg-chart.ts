/**
 * A small SVG line chart for the bench's curves, no dependency: each point is a range (its smallest
 * and largest value over rounds), drawn as a band and an error bar, with a line through the
 * midpoints; a title, labelled axes with ticks (x linear or logarithmic), and a legend.
 */
export interface ChartPoint {
  x: number;
  min: number;
  max: number;
}

export interface ChartSeries {
  name: string;
  points: ChartPoint[];
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  /** A log x axis (sizes such as 1, 100, 10,000): every x above 0. */
  xLog?: boolean;
  series: ChartSeries[];
}

const WIDTH = 640;
const PLOT = { left: 80, top: 40, width: 520, height: 260 };
const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** 1,234 or 0.123: at most 3 significant digits below 1,000. */
export function tickLabel(value: number): string {
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return String(Number(value.toPrecision(3)));
}

/** Ticks at 1, 2 or 5 × 10^k (linear) or at powers of 10 (log) covering [low, high]. */
function ticks(low: number, high: number, log = false): number[] {
  if (log) return range(Math.floor(Math.log10(low)), Math.ceil(Math.log10(high))).map((p) => 10 ** p);
  const raw = (high - low || Math.abs(high) || 1) / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  return range(Math.floor(low / step), Math.ceil(high / step)).map((k) => Number((k * step).toPrecision(12)));
}

const ends = (t: number[]) => [t[0] ?? 0, t.at(-1) ?? 0] as const;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

export function lineChart(spec: ChartSpec): string {
  const points = spec.series.flatMap((series) => series.points);
  const xs = points.map((p) => p.x);
  if (spec.xLog && xs.some((x) => !(x > 0))) throw new Error(`${spec.title}: log axis, x ≤ 0`);
  const xTicks = ticks(Math.min(...xs, spec.xLog ? 1 : 0), Math.max(...xs, spec.xLog ? 10 : 1), spec.xLog);
  const yTicks = ticks(Math.min(0, ...points.map((p) => p.min)), Math.max(...points.map((p) => p.max), 0));
  const [x0, x1] = ends(xTicks);
  const [y0, y1] = ends(yTicks);
  const scale = (v: number, a: number, b: number) => (b === a ? 0.5 : (v - a) / (b - a));
  const lx = (x: number) => (spec.xLog ? Math.log10(x) : x);
  const sx = (x: number) => PLOT.left + PLOT.width * scale(lx(x), lx(x0), lx(x1));
  const sy = (y: number) => PLOT.top + PLOT.height * (1 - scale(y, y0, y1));
  const f = (n: number) => n.toFixed(1);
  const bottom = PLOT.top + PLOT.height;
  const height = bottom + 60 + 18 * spec.series.length;
  const pt = (p: ChartPoint, y: number) => `${f(sx(p.x))},${f(sy(y))}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12" role="img">`,
    // Its name for screen readers (and for linters that hold SVG to it).
    `<title>${escapeXml(spec.title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(spec.title)}</text>`,
    `<rect class="plot" x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.width}" height="${PLOT.height}" fill="none" stroke="#888"/>`,
  ];
  for (const t of xTicks) {
    const x = f(sx(t));
    out.push(
      `<line x1="${x}" y1="${PLOT.top}" x2="${x}" y2="${bottom}" stroke="#eee"/>`,
      `<text x="${x}" y="${bottom + 16}" text-anchor="middle">${escapeXml(tickLabel(t))}</text>`,
    );
  }
  for (const t of yTicks) {
    const y = f(sy(t));
    out.push(
      `<line x1="${PLOT.left}" y1="${y}" x2="${PLOT.left + PLOT.width}" y2="${y}" stroke="#eee"/>`,
      `<text x="${PLOT.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(tickLabel(t))}</text>`,
    );
  }
  out.push(
    `<text x="${PLOT.left + PLOT.width / 2}" y="${bottom + 36}" text-anchor="middle">${escapeXml(spec.xLabel)}${spec.xLog ? " (log scale)" : ""}</text>`,
    `<text transform="translate(18 ${PLOT.top + PLOT.height / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  spec.series.forEach((series, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const sorted = [...series.points].sort((a, b) => a.x - b.x);
    const band = [...sorted.map((p) => pt(p, p.max)), ...[...sorted].reverse().map((p) => pt(p, p.min))];
    out.push(
      `<g class="series" stroke="${colour}" fill="${colour}">`,
      `<polygon points="${band.join(" ")}" fill-opacity="0.15" stroke="none"/>`,
      `<polyline points="${sorted.map((p) => pt(p, (p.min + p.max) / 2)).join(" ")}" fill="none" stroke-width="2"/>`,
    );
    for (const p of sorted) {
      const [x, lo, hi] = [f(sx(p.x)), f(sy(p.min)), f(sy(p.max))];
      const label = `${series.name}: ${tickLabel(p.x)} → ${tickLabel(p.min)}${p.max === p.min ? "" : ` – ${tickLabel(p.max)}`}`;
      out.push(
        `<g class="point"><title>${escapeXml(label)}</title>`,
        `<line class="range" x1="${x}" y1="${lo}" x2="${x}" y2="${hi}" stroke-width="1.5"/>`,
        `<circle cx="${x}" cy="${f(sy((p.min + p.max) / 2))}" r="3"/></g>`,
      );
    }
    const y = bottom + 50 + 18 * index;
    out.push(
      `</g>`,
      `<line x1="${PLOT.left}" y1="${y}" x2="${PLOT.left + 24}" y2="${y}" stroke="${colour}" stroke-width="3"/>`,
      `<text x="${PLOT.left + 30}" y="${y}" dominant-baseline="middle">${escapeXml(series.name)}</text>`,
    );
  });
  out.push(`</svg>`);
  return `${out.join("\n")}\n`;
}
