import { useEffect, useRef, useState } from 'react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  /** `[epoch_ms, value]` points, as the API's statistics give them. */
  points: number[][];
  color: string;
}

/**
 * A time series chart drawn by uPlot (loaded with the first chart), with a table of the same
 * figures for screen readers. `bars`: one bar per point (billing by month).
 */
export function Chart({
  title,
  series,
  unit = '',
  bars = false,
  height = 220,
}: {
  title: string;
  series: Series[];
  unit?: string;
  bars?: boolean;
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.max(240, el.clientWidth)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | undefined;
    let cancelled = false;
    void import('uplot').then(({ default: UPlot }) => {
      if (cancelled) return;
      const xs = series[0]?.points.map((p) => (p[0] ?? 0) / 1000) ?? [];
      const data = [
        xs,
        ...series.map((s) => s.points.map((p) => p[1] ?? null)),
      ] as uPlot.AlignedData;
      plot = new UPlot(
        {
          width,
          height,
          series: [
            {},
            ...series.map((s) => ({
              label: s.label,
              stroke: s.color,
              fill: bars ? s.color : `${s.color}22`,
              width: bars ? 0 : 1.5,
              ...(bars ? { paths: UPlot.paths.bars?.({ size: [0.6, 64] }) } : {}),
              value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${v.toFixed(2)}${unit}`),
            })),
          ],
          axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map((t) => `${t}${unit}`) }],
          scales: { x: { time: true } },
        },
        data,
        el,
      );
    });
    return () => {
      cancelled = true;
      plot?.destroy();
    };
  }, [series, width, height, unit, bars]);
  const last = series.map((s) => s.points[s.points.length - 1]?.[1]);
  return (
    <figure className="chart-figure">
      <figcaption>
        <strong>{title}</strong>
        {last.some((v) => v !== undefined) ? (
          <span className="muted">
            {' '}
            — latest:{' '}
            {series.map((s, i) => `${s.label} ${last[i]?.toFixed(2) ?? '—'}${unit}`).join(', ')}
          </span>
        ) : null}
      </figcaption>
      <div
        ref={box}
        className="chart"
        role="img"
        aria-label={`${title}: chart of ${series.map((s) => s.label).join(', ')}`}
      />
    </figure>
  );
}
