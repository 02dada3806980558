import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, UpdatedAtColumn } from '../../database/columns';

/**
 * A reusable document: a PDF plus its `template_annotation` (form fields with bbox, pageIndex, customData.type and
 * formFieldValues). The annotation JSON can be large (a tax form has hundreds of fields), so it lives in document
 * storage under `annotationKey`.
 */
@Entity('templates')
@Index('idx_templates_org_created', ['orgId', 'createdAt'])
export class TemplateEntity {
  @PrimaryColumn({ name: 'template_id', type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId!: string;

  @Column({ name: 'template_name', type: 'varchar', length: 200 })
  name!: string;

  @Column({ name: 'file_key', type: 'varchar', length: 64 })
  fileKey!: string;

  @Column({ type: 'varchar', length: 255 })
  filename!: string;

  @Column({ name: 'total_pages', type: 'int' })
  totalPages!: number;

  @Column({ name: 'annotation_key', type: 'varchar', length: 64 })
  annotationKey!: string;

  @Column({ name: 'field_count', type: 'int' })
  fieldCount!: number;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
