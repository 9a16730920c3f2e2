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
