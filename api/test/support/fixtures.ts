/**
 * The shared, real-world fixtures (../shared/fixtures beside the checkout, as CI lays it out; SHARED_DIR overrides
 * the location), found by the test-support package every suite uses.
 */
export { fixturePath, readFixture, sharedDir } from '@esign/test-support';
