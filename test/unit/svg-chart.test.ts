import { type ChartSpec, escapeXml, lineChart, tickLabel } from "../../bench/svg-chart";

// The bench's charts are text: escaped, well-formed, every series and point in them, and every
// range drawn inside the plot area.

const SPEC: ChartSpec = {
  title: "Reads <per> 1,000 events & more",
  xLabel: "instances with traffic",
  yLabel: "Cosmos DB round trips",
  xLog: true,
  series: [
    {
      name: `cold "first" <pass>`,
      points: [
        { x: 1, min: 0.1, max: 0.2 },
        { x: 100, min: 10, max: 12 },
        { x: 10000, min: 990, max: 1000 },
      ],
    },
    { name: "warm & fresh", points: [{ x: 10000, min: 0, max: 3 }] },
  ],
};

/** A tag-balance check: every element closed in order, no bare `&` or `<` in text. */
function wellFormed(svg: string): boolean {
  const stack: string[] = [];
  const tags = svg.matchAll(/<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g);
  let last = 0;
  for (const tag of tags) {
    const text = svg.slice(last, tag.index);
    if (/[<>]|&(?!#\d+;|amp;|lt;|gt;|quot;)/.test(text)) return false;
    last = tag.index + tag[0].length;
    if (tag[1] === "/") {
      if (stack.pop() !== tag[2]) return false;
    } else if (tag[4] !== "/") stack.push(tag[2] ?? "");
  }
  return stack.length === 0 && svg.slice(last).trim() === "" && svg.startsWith("<svg");
}

describe("lineChart", () => {
  const svg = lineChart(SPEC);

  it("escapes text as XML", () => {
    expect(escapeXml(`a<b & "c" 'd'>`)).toBe("a&#60;b &#38; &#34;c&#34; &#39;d&#39;&#62;");
    expect(svg).toContain(escapeXml(SPEC.title));
    expect(svg).not.toContain("<per>");
    expect(svg).not.toContain("<pass>");
  });

  it("is well-formed", () => {
    expect(wellFormed(svg)).toBe(true);
    expect(wellFormed("<svg><g></svg></g>")).toBe(false);
    expect(wellFormed("<svg>a & b</svg>")).toBe(false);
  });

  it("names every series in the legend and every point in a title", () => {
    for (const series of SPEC.series) {
      expect(svg).toContain(`>${escapeXml(series.name)}</text>`);
      for (const point of series.points) {
        expect(svg).toContain(escapeXml(`${series.name}: ${tickLabel(point.x)} → ${tickLabel(point.min)}`));
      }
    }
    expect(svg.match(/<g class="point">/g)).toHaveLength(4);
    expect(svg).toContain("(log scale)");
  });

  it("maps every range into the plot area, larger values higher", () => {
    const plot = svg.match(/class="plot" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/);
    expect(plot).not.toBeNull();
    const [left = 0, top = 0, width = 0, height = 0] = (plot ?? []).slice(1).map(Number);
    const ranges = [...svg.matchAll(/class="range" x1="([\d.]+)" y1="([\d.]+)" x2="[\d.]+" y2="([\d.]+)"/g)];
    expect(ranges).toHaveLength(4);
    for (const [, x, low, high] of ranges) {
      expect(Number(x)).toBeGreaterThanOrEqual(left);
      expect(Number(x)).toBeLessThanOrEqual(left + width);
      for (const y of [Number(low), Number(high)]) {
        expect(y).toBeGreaterThanOrEqual(top);
        expect(y).toBeLessThanOrEqual(top + height);
      }
      expect(Number(high)).toBeLessThanOrEqual(Number(low));
    }
    // A log axis: 1, 100 and 10,000 are evenly spaced.
    const [a = 0, b = 0, c = 0] = ranges.slice(0, 3).map(([, x]) => Number(x));
    expect(b - a).toBeCloseTo(c - b, 0);
  });

  it("refuses an x of 0 on a log axis, and draws a linear one", () => {
    expect(() => lineChart({ ...SPEC, series: [{ name: "a", points: [{ x: 0, min: 1, max: 1 }] }] })).toThrow(
      /log axis/,
    );
    const linear = lineChart({
      ...SPEC,
      xLog: false,
      series: [{ name: "a", points: [{ x: 16, min: 2, max: 4 }] }],
    });
    expect(wellFormed(linear)).toBe(true);
    expect(linear).not.toContain("(log scale)");
  });
});
