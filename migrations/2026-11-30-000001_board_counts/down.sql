DROP TABLE feedback_board_counts;
