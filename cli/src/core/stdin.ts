/** Everything on stdin as text (empty when stdin is a terminal: nothing was piped). */
export async function readStdin(stream: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): Promise<string> {
  if (stream.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
