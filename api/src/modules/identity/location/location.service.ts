import { Injectable } from '@nestjs/common';
import type { OrganisationEntity } from '../../organisations/organisation.entity';
import type { PartyLocation } from '../../requests/party.entity';
import { countryAt, INDIA } from './countries';

/**
 * The organisation's location policy (spec section 4, step 10): where the signer is, by point-in-polygon on the
 * country boundaries, and whether the organisation lets them sign from there. Today the policy has one switch,
 * allow_signing_from_india; a position outside India (or at sea) is allowed.
 */
@Injectable()
export class LocationService {
  decide(org: Pick<OrganisationEntity, 'allowSigningFromIndia'>, latitude: number, longitude: number): PartyLocation {
    const hit = countryAt(latitude, longitude);
    const inIndia = hit?.id === INDIA;
    return {
      latitude: Math.round(latitude * 1e6) / 1e6,
      longitude: Math.round(longitude * 1e6) / 1e6,
      country: hit?.name ?? null,
      inIndia,
      allowed: inIndia ? org.allowSigningFromIndia : true,
    };
  }
}
