import { render } from '@testing-library/react';
import PerformanceChart from '@/components/connections/PerformanceChart';
import DeliveryChart from '@/components/conversions/DeliveryChart';
import { CHART_TEXT_PX } from '@/components/ui/useSvgScale';
import type { Connection, WrittenDay } from '@/lib/shared/connections/connection';

/** What the browser would lay out: the SVG's width on screen (jsdom has no layout). */
function svgOnScreen(width: number) {
  jest.spyOn(SVGElement.prototype, 'getBoundingClientRect').mockReturnValue({ width, height: 0 } as DOMRect);
}

afterEach(() => jest.restoreAllMocks());

/** A tick label's size on screen: its font size in viewBox units times the SVG's scale. */
function onScreenSizes(container: HTMLElement, width: number): number[] {
  return [...container.querySelectorAll('svg')].flatMap((svg) => {
    const scale = width / Number(svg.getAttribute('viewBox')!.split(' ')[2]);
    return [...svg.querySelectorAll('text')].map((text) => parseFloat(text.style.fontSize) * scale);
  });
}

const connection = { source: { accounts: [{ id: '101', name: 'Acme Shoes' }] } } as unknown as Connection;
const days: WrittenDay[] = Array.from({ length: 28 }, (_, index) => ({
  date: new Date(Date.UTC(2026, 9, 1 + index)).toISOString().slice(0, 10),
  accounts: { '101': { spend: 40 + index, clicks: 100 + index, impressions: 4000 } },
}));

test.each([330, 480, 960])('on a %i px wide performance chart the tick labels are 12 px on screen, as many as fit', (width) => {
  svgOnScreen(width);
  const { container } = render(<PerformanceChart days={days} connection={connection} />);
  const sizes = onScreenSizes(container, width);
  expect(sizes.length).toBeGreaterThan(0);
  for (const size of sizes) expect(size).toBeCloseTo(CHART_TEXT_PX, 5);
  // As many day labels as fit (about 64 px each), never the 8 of a wide chart squeezed into a phone.
  const dayLabels = container.querySelector('svg')!.querySelectorAll('text[text-anchor="middle"]').length;
  expect(dayLabels * 64).toBeLessThanOrEqual(width + 64);
});

test('the delivery chart’s tick labels are 12 px on a phone', () => {
  svgOnScreen(330);
  const now = Date.UTC(2026, 10, 25, 12);
  const { container } = render(<DeliveryChart hours={[{ hour: '2026-11-25T10', delivered: 5, failed: 1 }]} now={now} />);
  const sizes = onScreenSizes(container, 330);
  expect(sizes.length).toBeGreaterThan(0);
  for (const size of sizes) expect(size).toBeGreaterThanOrEqual(11);
});
