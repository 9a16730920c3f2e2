import { useLayoutEffect, useRef, useState } from 'react';

/** The smallest text a chart draws, in CSS pixels (WCAG asks for readable text; 6 px tick labels were not). */
export const CHART_TEXT_PX = 12;

// Server rendering has no layout: the effect runs only in the browser.
const useBrowserLayoutEffect = typeof window === 'undefined' ? () => undefined : useLayoutEffect;

/**
 * How many viewBox units one CSS pixel is in a responsive SVG `viewBoxWidth` units wide: a chart drawn
 * in a fixed viewBox shrinks with its box on a phone, and its text with it, so text sizes and margins are
 * given in pixels times this. `width` is the SVG's width on screen (the viewBox width before layout).
 */
export function useSvgScale(viewBoxWidth: number) {
  const ref = useRef<SVGSVGElement>(null);
  const [width, setWidth] = useState(viewBoxWidth);
  useBrowserLayoutEffect(() => {
    const svg = ref.current;
    if (!svg) return;
    const measure = () => {
      const measured = svg.getBoundingClientRect().width;
      if (measured > 0) setWidth(measured);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(svg);
    return () => observer.disconnect();
  }, []);
  const unitsPerPx = viewBoxWidth / width;
  return { ref, width, unitsPerPx, px: (pixels: number) => pixels * unitsPerPx };
}

/** A chart's margins around its plot, in viewBox units. */
export interface ChartPad {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * A bar chart's frame in a responsive SVG `viewBoxWidth` wide: its margins, height and text size, in
 * viewBox units but never smaller than their screen-pixel sizes (on a phone the viewBox shrinks; the axis
 * labels and the plot must not). `pad` and `minHeight` are the sizes at full width; `axisLabelPx` is the
 * room the left axis's labels take on screen.
 */
export function useChartFrame(
  viewBoxWidth: number,
  { pad: base, minHeight, axisLabelPx }: { pad: ChartPad; minHeight: number; axisLabelPx: number },
) {
  const { ref, width, px } = useSvgScale(viewBoxWidth);
  const pad: ChartPad = {
    top: Math.max(base.top, px(8)),
    right: base.right,
    bottom: Math.max(base.bottom, px(CHART_TEXT_PX + 10)),
    left: Math.max(base.left, px(axisLabelPx)),
  };
  const height = Math.max(minHeight, px(150));
  return {
    ref,
    width,
    px,
    pad,
    height,
    text: { fontSize: px(CHART_TEXT_PX) },
    plotWidth: viewBoxWidth - pad.left - pad.right,
    plotHeight: height - pad.top - pad.bottom,
  };
}

/** A round top for a chart's axis: 1, 2, 5 × 10ⁿ (at least 4). */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}
