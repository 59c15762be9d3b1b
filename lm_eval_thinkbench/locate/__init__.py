"""First-correct locators: where does the reasoning first commit to the right answer?"""
