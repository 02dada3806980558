interface MimePart {
  headers: Map<string, string>;
  body: string;
}

/** Just enough MIME for nodemailer's output: unfolded headers, multipart bodies, quoted-printable and base64. */
export function parseMime(raw: string): { headers: Map<string, string>; parts: MimePart[] } {
  const split = (text: string): MimePart => {
    const at = text.indexOf('\r\n\r\n');
    const head = text.slice(0, at).replace(/\r\n[ \t]+/g, ' ');
    const headers = new Map<string, string>();
    for (const line of head.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    return { headers, body: text.slice(at + 4) };
  };
  const decode = (part: MimePart): string => {
    const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
    if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
    if (encoding === 'quoted-printable') {
      const soft = part.body.replace(/=\r\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
          bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(...Buffer.from(soft[i], 'utf8'));
      }
      return Buffer.from(bytes).toString('utf8');
    }
    return part.body;
  };
  const leaves = (part: MimePart): MimePart[] => {
    const type = part.headers.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (!type.toLowerCase().startsWith('multipart/') || !boundary)
      return [{ headers: part.headers, body: decode(part) }];
    const sections = part.body.split(`--${boundary}`).slice(1);
    return sections.filter((s) => !s.startsWith('--')).flatMap((s) => leaves(split(s.replace(/^\r\n/, ''))));
  };
  const top = split(raw);
  return { headers: top.headers, parts: leaves(top) };
}
