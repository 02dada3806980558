import { eventDetail } from './seal.service';

describe("eventDetail (the certificate of completion's audit details)", () => {
  it("writes times in the organisation's zone, as every time a person reads", () => {
    const detail = eventDetail(
      { checkOrder: false, expiresAt: '2026-12-24T21:34:11.158Z', otpId: 'hidden' },
      'Asia/Kolkata',
    );
    expect(detail).toBe('checkOrder: false; expiresAt: 25 Dec 2026, 3:04 am IST');
    expect(eventDetail({ rejectedAt: '2026-12-24T21:34:11Z' }, 'Europe/London')).toBe(
      'rejectedAt: 24 Dec 2026, 9:34 pm GMT',
    );
  });

  it('leaves other text alone and keeps the 240-character limit', () => {
    expect(eventDetail({ filename: '2026-12-24 minutes.pdf', pages: 3 }, 'Asia/Kolkata')).toBe(
      'filename: 2026-12-24 minutes.pdf; pages: 3',
    );
    expect(eventDetail({ remark: 'x'.repeat(400) })?.length).toBe(240);
    expect(eventDetail(null)).toBeNull();
  });
});
