/**
 * Downloads a file from our own API as the signed-in user (bearer ID token, as apiRequest sends it) and
 * hands it to the browser to save. Returns the server's message when it refused, else null.
 */
export async function downloadFile(path: string, fileName: string): Promise<string | null> {
  const { clientAuth } = await import('@/lib/client/firebase/auth');
  const auth = clientAuth();
  await auth.authStateReady();
  const token = await auth.currentUser?.getIdToken();
  try {
    const response = await fetch(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    if (!response.ok) {
      const payload = await response.json().catch(() => ({}));
      return typeof payload.message === 'string' ? payload.message : `The server answered ${response.status}.`;
    }
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
    // The click has started the download; the object URL is needed no longer.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return null;
  } catch {
    return 'The network failed. Try again.';
  }
}
