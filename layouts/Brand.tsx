import Link from 'next/link';

export default function Brand({ href = '/' }: { href?: string }) {
  return (
    <Link href={href} className="brand">
      <span className="brand__mark" aria-hidden />
      SignalBridge
    </Link>
  );
}
