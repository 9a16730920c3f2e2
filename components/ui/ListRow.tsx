import Link from 'next/link';
import { useRouter } from 'next/router';
import type { ReactNode } from 'react';
import Button from '@/components/ui/Button';

/** A list row's first cell: its name, linking to its page (the card's title on phones, so no data-label). */
export function NameCell({ href, children }: { href: string; children: ReactNode }) {
  return (
    <td>
      <Link className="cell-wrap" href={href}>
        {children}
      </Link>
    </td>
  );
}

/** The row's "Configure" action: opens the object's page (a button beside the row's other actions). */
export function ConfigureButton({ href }: { href: string }) {
  const router = useRouter();
  return (
    <Button type="button" variant="secondary" className="button--small" onClick={() => void router.push(href)}>
      Configure
    </Button>
  );
}
