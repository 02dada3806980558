import { Module } from '@nestjs/common';
import { FaceService } from './face/face.service';
import { LocationService } from './location/location.service';

/** Checks of who and where the signer is: location, face capture and liveness (DESIGN.md section 6). */
@Module({ providers: [LocationService, FaceService], exports: [LocationService, FaceService] })
export class IdentityModule {}
