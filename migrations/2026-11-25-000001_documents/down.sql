DROP TABLE document_reactions;
DROP TABLE documents;
