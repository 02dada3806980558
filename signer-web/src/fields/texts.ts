/** What a field's file input takes (the server checks the content again). */
export const ATTACHMENT_ACCEPT = '.pdf,.png,.jpg,.jpeg';
