import { Module } from '@nestjs/common';
import { LocationService } from './location/location.service';

/** Checks of who and where the signer is: location now; face capture and liveness come with step 7. */
@Module({ providers: [LocationService], exports: [LocationService] })
export class IdentityModule {}
