// Jest compiles NestJS 12 (ES modules) to CommonJS; `import.meta.url` becomes this file's URL. Unlike
// babel-plugin-transform-import-meta it uses no `require`, which some of those modules redeclare
// (`const require = createRequire(import.meta.url)`).
module.exports = ({ types: t }) => ({
  visitor: {
    MetaProperty(path) {
      if (path.node.meta.name !== 'import' || path.node.property.name !== 'meta') return;
      const parent = path.parentPath;
      if (parent.isMemberExpression() && t.isIdentifier(parent.node.property, { name: 'url' })) {
        parent.replaceWith(t.binaryExpression('+', t.stringLiteral('file://'), t.identifier('__filename')));
      } else {
        path.replaceWith(
          t.objectExpression([
            t.objectProperty(
              t.identifier('url'),
              t.binaryExpression('+', t.stringLiteral('file://'), t.identifier('__filename')),
            ),
            t.objectProperty(t.identifier('dirname'), t.identifier('__dirname')),
            t.objectProperty(t.identifier('filename'), t.identifier('__filename')),
          ]),
        );
      }
    },
  },
});
