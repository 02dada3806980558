import DescriptionOutlinedIcon from '@mui/icons-material/DescriptionOutlined';
import TemplateCreate from './TemplateCreate';
import TemplateList from './TemplateList';

/**
 * The templates resource (GET, POST, PUT, DELETE /api/templates): the list at /templates, the editor at
 * /templates/create (with ?id= it edits that template; ?from= is where Save and Cancel return).
 */
export default {
  list: TemplateList,
  create: TemplateCreate,
  icon: DescriptionOutlinedIcon,
  recordRepresentation: 'template_name',
};
export { TemplatePicker } from './TemplatePicker';
