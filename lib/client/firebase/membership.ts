/**
 * Watches the signed-in user's membership document in real time, so that someone removed from an
 * organization loses its pages at once, even with a page open. The Firestore SDK loads only here.
 */
export async function watchMembership(orgId: string, uid: string, onLost: () => void): Promise<() => void> {
  const [{ doc, onSnapshot }, { clientDb }, { clientAuth }] = await Promise.all([
    import('firebase/firestore'),
    import('@/lib/client/firebase/firestore'),
    import('@/lib/client/firebase/auth'),
  ]);
  const auth = clientAuth();
  await auth.authStateReady();
  if (auth.currentUser?.uid !== uid) return () => undefined;
  return onSnapshot(
    doc(clientDb(), 'organizations', orgId, 'members', uid),
    (snapshot) => {
      if (!snapshot.exists()) onLost();
    },
    // Once removed, the security rules no longer let the user read the document at all.
    (error) => {
      if (error.code === 'permission-denied') onLost();
    },
  );
}
